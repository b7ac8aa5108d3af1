/** Where the user writes to the agent: Enter sends, Shift+Enter starts a new line; Stop while a turn runs. */
import { useEffect, useState, type FormEvent, type KeyboardEvent } from 'react';
import { drafts } from '../../stores/drafts';


export interface ComposerProps {
  /** The chat the draft belongs to. */
  chatId: string;
  running: boolean;
  /** The running turn waits for the user's answer to an approval (not for the agent). */
  waiting?: boolean;
  /**
   * Until the chat's history has loaded, whether a turn runs is not known: a message sent before
   * then waits, says so, and goes once it has loaded (unless a turn turns out to be running).
   */
  ready?: boolean;
  sending: boolean;
  stopping: boolean;
  /** Resolves true when main took the message (the box is cleared then, not before). */
  onSend(text: string): Promise<boolean>;
  onStop(): void;
}

export function Composer({ chatId, running, waiting = false, ready = true, sending, stopping, onSend, onStop }: ComposerProps) {
  const [text, setTextState] = useState(() => drafts.get(chatId) ?? '');
  const setText = (update: string | ((now: string) => string)) =>
    setTextState((now) => {
      const next = typeof update === 'function' ? update(now) : update;
      drafts.set(chatId, next);
      return next;
    });
  const free = !running && !sending && text.trim() !== '';
  const canSend = ready && free;
  // Enter pressed before the history loaded: kept, and sent when it has (never dropped silently).
  const canQueue = !ready && free;
  const [queued, setQueued] = useState(false);

  const send = async () => {
    if (canQueue) {
      setQueued(true);
      return;
    }
    if (!canSend) return;
    const sent = text;
    if (await onSend(sent)) setText((now) => (now === sent ? '' : now));
  };

  useEffect(() => {
    if (!queued || !ready) return;
    setQueued(false);
    // A turn found running keeps the text in the box (the user sends it after, or stops the turn).
    // Runs when the history arrives, with that render's text.
    if (canSend) void send();
  }, [queued, ready]);

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // keyCode 229: Safari's Enter that ends an IME composition (isComposing is already false).
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing || event.nativeEvent.keyCode === 229) return;
    event.preventDefault();
    void send();
  };

  return (
    <form
      className="composer"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        void send();
      }}
    >
      <textarea
        aria-label="Message"
        className="composer-input"
        placeholder={
          queued
            ? 'Loading the conversation: your message goes once it has loaded…'
            : running
            ? waiting
              ? 'Waiting for your approval above (Stop ends the turn)'
              : 'The agent is working… (Stop to interrupt it)'
            : 'Ask the agent (Enter sends, Shift+Enter for a new line)'
        }
        rows={3}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {/* Two buttons, not one that changes its job: a double click on Send must never press Stop. */}
      {running ? (
        <button type="button" className="danger" onClick={onStop} disabled={stopping}>
          Stop
        </button>
      ) : (
        <button type="submit" className="primary" disabled={!(canSend || canQueue)}>
          {queued ? 'Sending…' : 'Send'}
        </button>
      )}
    </form>
  );
}

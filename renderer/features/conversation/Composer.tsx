/** Where the user writes to the agent: Enter sends, Shift+Enter starts a new line; Stop while a turn runs. */
import { useState, type FormEvent, type KeyboardEvent } from 'react';

/** Unsent text by chat: switching chats (which remounts the pane) keeps what was typed. */
const drafts = new Map<string, string>();

export interface ComposerProps {
  /** The chat the draft belongs to. */
  chatId: string;
  running: boolean;
  /** The running turn waits for the user's answer to an approval (not for the agent). */
  waiting?: boolean;
  /** Until the chat's history has loaded, whether a turn runs is not known: nothing is sent. */
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
      if (next === '') drafts.delete(chatId);
      else drafts.set(chatId, next);
      return next;
    });
  const canSend = ready && !running && !sending && text.trim() !== '';

  const send = async () => {
    if (!canSend) return;
    const sent = text;
    if (await onSend(sent)) setText((now) => (now === sent ? '' : now));
  };

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
          running
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
        <button type="submit" className="primary" disabled={!canSend}>
          Send
        </button>
      )}
    </form>
  );
}

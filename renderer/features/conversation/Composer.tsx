/** Where the user writes to the agent: Enter sends, Shift+Enter starts a new line; Stop while a turn runs. */
import { useState, type FormEvent, type KeyboardEvent } from 'react';

export interface ComposerProps {
  running: boolean;
  sending: boolean;
  stopping: boolean;
  /** Resolves true when main took the message (the box is cleared then, not before). */
  onSend(text: string): Promise<boolean>;
  onStop(): void;
}

export function Composer({ running, sending, stopping, onSend, onStop }: ComposerProps) {
  const [text, setText] = useState('');
  const canSend = !running && !sending && text.trim() !== '';

  const send = async () => {
    if (!canSend) return;
    const sent = text;
    if (await onSend(sent)) setText((now) => (now === sent ? '' : now));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
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
        placeholder={running ? 'The agent is working… (Stop to interrupt it)' : 'Ask the agent (Enter sends, Shift+Enter for a new line)'}
        rows={3}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
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

/** A notice line with a button that dismisses it (the header shows several such lines under its one row). */
import { MESSAGES } from './messages';

export function Notice({ text, onDismiss }: { text: string; onDismiss(): void }) {
  return (
    <p role="status" className="notice notice-line">
      <span>{text}</span>
      <button type="button" className="link-button" aria-label={MESSAGES.dismissNotice} title={MESSAGES.dismissNotice} onClick={onDismiss}>
        ×
      </button>
    </p>
  );
}

/** An error from main shown as is: its message, and its hint (the next step) under it. */
import type { ApiErrorInfo } from '../api/errors';

export function ErrorAlert({ error, onDismiss, label }: { error: ApiErrorInfo; onDismiss?: () => void; label?: string }) {
  return (
    <div role="alert" className="alert" aria-label={label}>
      <div className="alert-body">
        <p className="alert-message">{error.message}</p>
        {error.hint !== null && <p className="alert-hint">{error.hint}</p>}
      </div>
      {onDismiss && (
        <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}

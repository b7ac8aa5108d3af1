/** An error from main shown as is: its message, and its hint (the next step) under it. */
import type { ReactNode } from 'react';
import type { ApiErrorInfo } from '../api/errors';

export function ErrorAlert({
  error,
  onDismiss,
  label,
  action,
}: {
  error: ApiErrorInfo;
  onDismiss?: () => void;
  label?: string;
  /** What the user can do about it (a Retry button), inside the alert after the words. */
  action?: ReactNode;
}) {
  return (
    <div role="alert" className="alert" aria-label={label}>
      <div className="alert-body">
        <p className="alert-message">{error.message}</p>
        {error.hint !== null && <p className="alert-hint">{error.hint}</p>}
      </div>
      {action}
      {onDismiss && (
        <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}

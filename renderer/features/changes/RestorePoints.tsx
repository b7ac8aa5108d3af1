/**
 * Going back to a restore point of the chat's copies: one before each agent turn, one per
 * "Checkpoint", one before each undo. Restoring asks first and keeps the current state as a
 * restore point itself, so it can be undone the same way.
 */
import { useState } from 'react';
import type { Checkpoint } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions, useReview } from '../../services/context';
import { reviewActions } from './actions';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { ForkFromPoint } from '../compare';

const NONE: readonly Checkpoint[] = [];

/** Main's labels say what each point is ("Before an agent turn", "Checkpoint", "Before restoring …"). */
function describe(cp: Checkpoint): string {
  return `${new Date(cp.createdAt).toLocaleTimeString()}: ${cp.label}`;
}

export function RestorePoints({ chatId }: { chatId: string }) {
  const review = useActions(reviewActions);
  const checkpoints = useReview((s) => s.checkpoints[chatId]) ?? NONE;
  const [picked, setPicked] = useState<string>('');
  const [confirm, setConfirm] = useState<Checkpoint | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  if (checkpoints.length === 0) return null;
  const newestFirst = [...checkpoints].reverse();
  const chosen = checkpoints.find((c) => c.id === picked) ?? null;

  const restore = async (cp: Checkpoint) => {
    setConfirm(null);
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      const r = await review.restore(chatId, cp.id);
      setMessage(r.message);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <select aria-label="Restore point" value={picked} onChange={(e) => setPicked(e.target.value)} disabled={busy}>
        <option value="">Restore points…</option>
        {newestFirst.map((cp) => (
          <option key={cp.id} value={cp.id}>
            {describe(cp)}
          </option>
        ))}
      </select>
      <button type="button" disabled={busy || chosen === null} onClick={() => setConfirm(chosen)}>
        Restore…
      </button>
      <ForkFromPoint chatId={chatId} point={chosen} />
      {message && (
        <span role="status" className="muted">
          {message}
        </span>
      )}
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {confirm && (
        <Dialog
          title="Restore this point?"
          onClose={() => setConfirm(null)}
          description={`The chat's copies go back to ${describe(confirm)}. Your own folder is not touched, and the state before this is kept as a restore point.`}
        >
          <div className="dialog-buttons">
            <button type="button" onClick={() => setConfirm(null)} data-autofocus>
              Cancel
            </button>
            <button type="button" className="danger" onClick={() => void restore(confirm)}>
              Restore
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}

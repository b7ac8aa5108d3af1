/**
 * At the end of an agent turn in the conversation: the files that turn changed in the chat's
 * Review-mode copies (from its restore point) and "Undo this turn", which puts the copies back to
 * just before it. Shown only for turns that have a restore point.
 */
import { useState } from 'react';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions, useAgent, useReview } from '../../services/context';
import { reviewActions } from './actions';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';

const SHOWN_FILES = 8;

export function TurnChanges({ chatId, turnMessageId }: { chatId: string; turnMessageId: string }) {
  const review = useActions(reviewActions);
  const checkpoint = useReview((s) => s.checkpoints[chatId]?.find((c) => c.reason === 'turn' && c.messageId === turnMessageId));
  const running = useAgent((s) => s.byChat[chatId]?.running ?? false);
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  // A turn that changed nothing has nothing to undo (a result or error of an undo stays shown).
  if (!checkpoint || (checkpoint.changedFiles.length === 0 && result === null && error === null)) return null;
  const files = checkpoint.changedFiles;

  const undo = async () => {
    setConfirm(false);
    setBusy(true);
    setError(null);
    try {
      const r = await review.undoTurn(chatId, turnMessageId);
      setResult(r.message);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div role="group" aria-label="Files this turn changed" className="turn-changes">
      {files.length === 0 ? (
        <span className="muted">This turn changed no files in the chat&apos;s copies.</span>
      ) : (
        <>
          <span className="muted">
            This turn changed {files.length} file{files.length === 1 ? '' : 's'}:
          </span>
          <ul>
            {files.slice(0, SHOWN_FILES).map((f) => (
              <li key={f}>{f}</li>
            ))}
            {files.length > SHOWN_FILES && <li className="muted">and {files.length - SHOWN_FILES} more</li>}
          </ul>
        </>
      )}
      <button
        type="button"
        className="small"
        disabled={busy || running}
        title={running ? 'Wait for the turn to end (or stop it) to undo it' : undefined}
        onClick={() => setConfirm(true)}
      >
        Undo this turn
      </button>
      {result && (
        <span role="status" className="muted">
          {result}
        </span>
      )}
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {confirm && (
        <Dialog
          title="Undo this turn?"
          onClose={() => setConfirm(false)}
          description="The chat's copies go back to just before this turn: what it changed, and what any later turn or command changed, is undone. Your own folder is not touched. The state before the undo is kept as a checkpoint."
        >
          <div className="dialog-buttons">
            <button type="button" onClick={() => setConfirm(false)} data-autofocus>
              Cancel
            </button>
            <button type="button" className="danger" onClick={() => void undo()}>
              Undo this turn
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}

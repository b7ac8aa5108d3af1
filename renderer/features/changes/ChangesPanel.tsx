/**
 * The chat's Changes panel: every Review-mode copy of the chat with its changed files and diffs,
 * unified or side by side, and a Checkpoint button (a restore point of all of the chat's copies,
 * for work done in the terminals; the agent's turns get one each by themselves).
 */
import './changes.css';
import { useEffect, useState } from 'react';
import type { ChatView } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions, useReview } from '../../services/context';
import { reviewActions } from './actions';
import { NO_CHANGES } from '../../stores/review';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { CopyReview } from './CopyReview';
import { RestorePoints } from './RestorePoints';
import { ReviewDraft } from './ReviewDraft';
import { useReviewComments } from './useReviewComments';
import type { DiffLayout } from './FileDiff';
import { useChangedCount } from './useChangedCount';

const LAYOUT_KEY = 'berth.changes.layout';

function storedLayout(): DiffLayout {
  try {
    return localStorage.getItem(LAYOUT_KEY) === 'split' ? 'split' : 'unified';
  } catch {
    return 'unified';
  }
}

export function ChangesPanel({ chatId, onClose }: { chatId: string; onClose(): void }) {
  const review = useActions(reviewActions);
  const changes = useReview((s) => s.changes[chatId]) ?? NO_CHANGES;
  const [layout, setLayoutState] = useState<DiffLayout>(storedLayout);
  const [checkpoint, setCheckpoint] = useState<{ busy: boolean; message: string | null; error: ApiErrorInfo | null }>({
    busy: false,
    message: null,
    error: null,
  });

  useEffect(() => {
    review.reloadChanges(chatId);
  }, [review, chatId]);

  const setLayout = (next: DiffLayout) => {
    setLayoutState(next);
    try {
      localStorage.setItem(LAYOUT_KEY, next);
    } catch {
      // Not kept: the choice still holds while the panel is open.
    }
  };

  const saveCheckpoint = async () => {
    setCheckpoint({ busy: true, message: null, error: null });
    try {
      const cp = await review.checkpoint(chatId, 'Checkpoint');
      setCheckpoint({ busy: false, message: `Checkpoint saved at ${new Date(cp.createdAt).toLocaleTimeString()}.`, error: null });
    } catch (e) {
      setCheckpoint({ busy: false, message: null, error: errorInfo(e) });
    }
  };

  const { copies, loaded, loading, error } = changes;
  const comments = useReviewComments(chatId, copies.map((c) => c.version).join(','));

  return (
    <section className="changes-panel" aria-label="Changes">
      <div className="changes-toolbar">
        <h2>Changes</h2>
        <div role="group" aria-label="Diff layout" className="segmented">
          <button type="button" className="small" aria-pressed={layout === 'unified'} onClick={() => setLayout('unified')}>
            Unified
          </button>
          <button type="button" className="small" aria-pressed={layout === 'split'} onClick={() => setLayout('split')}>
            Side by side
          </button>
        </div>
        <span className="spacer" />
        <RestorePoints chatId={chatId} />
        <button
          type="button"
          disabled={checkpoint.busy || copies.length === 0}
          title="Record a restore point of this chat's copies (the agent's turns get one each by themselves)"
          onClick={() => void saveCheckpoint()}
        >
          Checkpoint
        </button>
        <button type="button" disabled={loading} onClick={() => review.reloadChanges(chatId)}>
          Reload
        </button>
        <button type="button" onClick={onClose}>
          Close Changes
        </button>
      </div>
      {checkpoint.message && (
        <p role="status" className="notice">
          {checkpoint.message}
        </p>
      )}
      {checkpoint.error && <ErrorAlert error={checkpoint.error} onDismiss={() => setCheckpoint((c) => ({ ...c, error: null }))} />}
      {error && <ErrorAlert error={error} action={<button type="button" onClick={() => review.reloadChanges(chatId)}>Load again</button>} />}
      <ReviewDraft chatId={chatId} comments={comments} />
      {!loaded ? (
        <p className="muted">Loading the changes…</p>
      ) : copies.length === 0 && !error ? (
        <p className="muted">
          No folder of this chat is attached in Review mode. Attach one in Review mode (the default) to review the chat&apos;s changes before they reach
          your folder.
        </p>
      ) : (
        copies.map((copy) => <CopyReview key={copy.hostPath} chatId={chatId} copy={copy} layout={layout} comments={comments} />)
      )}
    </section>
  );
}

/** The header's way into the panel, with the chat's count of changed files. */
export function ChangesButton({ chat, open, onToggle }: { chat: ChatView; open: boolean; onToggle(): void }) {
  const count = useChangedCount(chat);
  return (
    <button type="button" className="small changes-toggle" aria-pressed={open} onClick={onToggle}>
      Changes{count !== null && count > 0 ? ` (${count.toLocaleString()})` : ''}
    </button>
  );
}

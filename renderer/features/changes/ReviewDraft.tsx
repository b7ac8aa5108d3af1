/** The review draft: how many comments wait to be sent, and the button that sends them to the chat's agent as one message. */
import { useState } from 'react';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions } from '../../services/context';
import { reviewActions } from './actions';
import { ErrorAlert } from '../../ui/ErrorAlert';
import type { ReviewComments } from './useReviewComments';

export function ReviewDraft({ chatId, comments }: { chatId: string; comments: ReviewComments }) {
  const review = useActions(reviewActions);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const drafts = comments.comments.filter((c) => c.state === 'draft').length;
  if (drafts === 0 && !sent && !error) return null;

  const send = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await review.sendComments(chatId);
      setSent(`Sent ${r.sent} ${r.sent === 1 ? 'comment' : 'comments'} to the chat's agent.`);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
      comments.reload();
    }
  };

  return (
    <div className="review-draft changes-toolbar" role="region" aria-label="Review draft">
      {drafts > 0 && (
        <>
          <span>
            Review draft: {drafts} {drafts === 1 ? 'comment' : 'comments'}
          </span>
          <button type="button" className="primary" disabled={busy} onClick={() => void send()}>
            Send to the agent
          </button>
        </>
      )}
      {sent && (
        <span role="status" className="muted">
          {sent}
        </span>
      )}
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
    </div>
  );
}

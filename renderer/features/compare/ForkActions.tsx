/**
 * At the end of each ended agent turn: "Fork from here" (a new chat from this turn); at the last
 * one also "Try again in a new chat" and "Compare attempts" (compare/CompareView.tsx).
 */
import { useState } from 'react';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions, useAgent, useChats } from '../../services/context';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { MESSAGES } from '../../ui/messages';
import { compareActions } from './actions';
import { CompareView } from './CompareView';

export function ForkActions({ chatId, turnMessageId }: { chatId: string; turnMessageId: string }) {
  const running = useAgent((s) => s.byChat[chatId]?.running ?? false);
  const last = useAgent((s) => [...(s.byChat[chatId]?.messages ?? [])].reverse().find((m) => m.role === 'user' && m.taskId === null)?.id === turnMessageId);
  const reviewFolder = useChats((s) => s.chats.find((c) => c.id === chatId)?.attachments.find((a) => a.mode === 'review')?.hostPath ?? null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [comparing, setComparing] = useState(false);
  const actions = useActions(compareActions);
  if (running) return null;
  const run = (work: () => Promise<void>) => async () => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div role="group" aria-label="Fork this turn" className="fork-actions">
      <button type="button" className="small" disabled={busy} title={MESSAGES.forkHint} onClick={run(() => actions.forkAt(chatId, turnMessageId))}>
        {MESSAGES.forkHere}
      </button>
      {last && (
        <button type="button" className="small" disabled={busy} title={MESSAGES.tryAgainHint} onClick={run(() => actions.retry(chatId))}>
          {MESSAGES.tryAgain}
        </button>
      )}
      {last && reviewFolder && (
        <button type="button" className="small" disabled={busy} onClick={() => setComparing(true)}>
          {MESSAGES.compareAttempts}
        </button>
      )}
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {comparing && reviewFolder && <CompareView chatId={chatId} hostPath={reviewFolder} onClose={() => setComparing(false)} />}
    </div>
  );
}

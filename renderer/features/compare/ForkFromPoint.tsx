/** "Fork from here" beside the restore points: a restore point before an agent turn forks from just before that turn. */
import { useState } from 'react';
import type { Checkpoint } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useServices } from '../../services/context';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { MESSAGES } from '../../ui/messages';
import { compareActions } from './actions';

export function ForkFromPoint({ chatId, point }: { chatId: string; point: Checkpoint | null }) {
  const { api, stores } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const messageId = point?.reason === 'turn' ? point.messageId : null;
  const fork = async (id: string) => {
    setBusy(true);
    setError(null);
    try {
      await compareActions(api, stores).forkAt(chatId, id, 'before');
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" disabled={busy || messageId === null} title={MESSAGES.forkPointHint} onClick={() => messageId && void fork(messageId)}>
        {MESSAGES.forkHere}
      </button>
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
    </>
  );
}

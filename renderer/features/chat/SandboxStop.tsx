/**
 * Stop in the sandbox details (the profile form tells the user to use it, to move a chat to its
 * profile's new engine): asks first when commands run in the chat's terminals.
 */
import { useState } from 'react';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions } from '../../services/context';
import { sandboxActions } from './actions';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { StopProcessesDialog, type BusyTerminals } from './StopProcessesDialog';

export function SandboxStop({ chatId }: { chatId: string }) {
  const sandbox = useActions(sandboxActions);
  const [busy, setBusy] = useState(false);
  const [running, setRunning] = useState<BusyTerminals | null>(null);
  const [error, setError] = useState<ApiErrorInfo | null>(null);

  const stop = async () => {
    setRunning(null);
    setBusy(true);
    setError(null);
    try {
      await sandbox.stop(chatId);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  const ask = async () => {
    let now: BusyTerminals = [];
    try {
      now = await sandbox.busyTerminals(chatId);
    } catch {
      // Not knowing is no reason to refuse: Stop goes ahead as asked.
    }
    if (now.length === 0) await stop();
    else setRunning(now);
  };

  return (
    <div className="sandbox-stop">
      <button type="button" className="small" disabled={busy} onClick={() => void ask()}>
        Stop sandbox
      </button>
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {running && <StopProcessesDialog action="stop" busy={running} onClose={() => setRunning(null)} onConfirm={() => void stop()} />}
    </div>
  );
}

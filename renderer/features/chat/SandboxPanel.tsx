/** The chat's sandbox: its state (with pull progress), errors with Retry, and a details disclosure. */
import { useId, useMemo, useState } from 'react';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions, useChats, useConnection, useEngine, useProfiles, useSandbox } from '../../services/context';
import { sandboxActions } from './actions';
import { displaySandbox } from '../../stores/sandbox';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { LOCAL_WARNING, SANDBOX_LABELS } from '../../ui/messages';
import { ProgressBar } from '../../ui/ProgressBar';
import { SandboxUse } from './SandboxUse';
import { SandboxStop } from './SandboxStop';

export function SandboxPanel({ chatId }: { chatId: string }) {
  const sandbox = useActions(sandboxActions);
  const view = useSandbox((s) => s.views[chatId]);
  const loadError = useSandbox((s) => s.loadErrors[chatId]);
  const display = useMemo(() => displaySandbox(view), [view]);
  const [retryError, setRetryError] = useState<ApiErrorInfo | null>(null);
  const [retrying, setRetrying] = useState(false);
  const [detailsOpen, setDetailsOpen] = useState(false);
  const detailsId = useId();
  const status = view?.status ?? null;
  const profileName = useChats((s) => s.chats.find((c) => c.id === chatId)?.profile);
  const cpuLimit = useProfiles((s) => s.profiles.find((p) => p.name === profileName)?.settings.limits.cpus ?? null);

  /** Brings the sandbox up again: a no-op command, then a terminal if the chat has none running. */
  const retry = async () => {
    setRetrying(true);
    setRetryError(null);
    try {
      await sandbox.bringUp(chatId);
    } catch (e) {
      setRetryError(errorInfo(e));
    } finally {
      setRetrying(false);
    }
  };

  // An engine that cannot be reached is said once, in the status bar, with what to do; the chat
  // only points there (its sandbox comes back with the engine, no Retry needed).
  const engineDownShown = useEngine((s) => s.status?.state === 'unreachable' || s.others.some((o) => o.state === 'unreachable'));
  const shownBelow = (e: { code: string } | null | undefined) => engineDownShown && e?.code === 'engine_unreachable';

  const { state } = display;
  // Without the link to Berth, the last state seen is no news: say what is known.
  const linked = useConnection((s) => s.state === 'open');
  if (!linked) {
    return (
      <section className="sandbox" aria-label="Sandbox">
        <div className="sandbox-row">
          <span className="state-dot state-stopped" aria-hidden="true" />
          <span className="sandbox-state">
            Sandbox: <strong>unknown</strong>
          </span>
          <span className="muted sandbox-message">not connected to Berth</span>
        </div>
      </section>
    );
  }
  return (
    <section className="sandbox" aria-label="Sandbox">
      <div className="sandbox-row">
        <span className={`state-dot state-${state}`} aria-hidden="true" />
        <span className="sandbox-state">
          Sandbox: <strong>{SANDBOX_LABELS[state]}</strong>
        </span>
        {display.message !== null && <span className="muted sandbox-message">{display.message}</span>}
        {(shownBelow(display.error) || shownBelow(loadError)) && <span className="muted sandbox-message">waiting for the engine: see the status bar</span>}
        {state === 'pulling' && <ProgressBar fraction={display.fraction} label="Pulling image" text={display.message ?? undefined} />}
        {state === 'building' && <ProgressBar fraction={display.fraction} label="Building image" text={display.message ?? undefined} />}
        {(state === 'creating' || state === 'starting') && <ProgressBar fraction={null} label={state === 'creating' ? 'Creating container' : 'Starting container'} />}
        <button
          type="button"
          className="link-button"
          aria-expanded={detailsOpen}
          aria-controls={detailsId}
          onClick={() => setDetailsOpen((o) => !o)}
        >
          Sandbox details
        </button>
      </div>
      {state === 'local' && <p className="warning">Local backend: {LOCAL_WARNING}.</p>}
      {state !== 'local' && status?.environment && <p className="muted sandbox-environment">{status.environment}</p>}
      {state === 'stopped' && <p className="muted">It starts again with the next command or terminal.</p>}
      {state === 'error' && display.error !== null && !shownBelow(display.error) && (
        <ErrorAlert
          error={{ ...display.error, hint: null }}
          action={
            <button type="button" onClick={() => void retry()} disabled={retrying}>
              Retry
            </button>
          }
        />
      )}
      {/* A retry that failed the same way shows as the sandbox's own error above, not twice. */}
      {retryError && state !== 'error' && !shownBelow(retryError) && <ErrorAlert error={retryError} onDismiss={() => setRetryError(null)} />}
      {loadError && !shownBelow(loadError) && (
        <div className="alert-with-action">
          <ErrorAlert error={loadError} />
          <button type="button" onClick={() => sandbox.reload(chatId)}>
            Check again
          </button>
        </div>
      )}
      {detailsOpen && (
        <div id={detailsId} className="sandbox-details">
          <dl className="details">
            <dt>Engine</dt>
            <dd>
              {status?.engine ? `${status.engine.label}${status.engine.remote ? ' (remote: attached folders are copies)' : ''}` : '—'}
              {status?.engine && status.profileEngine && (
                <span className="warning engine-moves" role="note" aria-label="Engine differs from the profile">
                  {`Runs on ${status.engine.label}; this chat's profile now uses ${status.profileEngine.label}. It moves there when its sandbox stops (Stop, or idle stop); its home folder and installed packages stay behind.`}
                </span>
              )}
            </dd>
            <dt>Container key</dt>
            <dd>{status?.key ?? '—'}</dd>
            <dt>Container name</dt>
            <dd>{status?.containerName ?? '—'}</dd>
            <dt>Network</dt>
            <dd>{status?.networkName ?? (status?.key ? 'none' : '—')}</dd>
            <dt>Image</dt>
            <dd>{status?.image ?? '—'}</dd>
            <dt>Container ID</dt>
            <dd>{status?.containerId ? status.containerId.slice(0, 12) : '—'}</dd>
          </dl>
          {state === 'running' && <SandboxStop chatId={chatId} />}
          {state !== 'local' && <SandboxUse chatId={chatId} running={state === 'running'} cpuLimit={cpuLimit} />}
        </div>
      )}
    </section>
  );
}

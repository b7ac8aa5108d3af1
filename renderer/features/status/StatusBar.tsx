/** The Docker engine's state and, over WebSocket, the connection's. */
import { useEffect, useState } from 'react';
import type { EngineStatus } from '../../../shared/contract';
import { useConnection, useEngine, useServices } from '../../services/context';
import { PreparationItems } from './PreparationItems';

export function EngineStatusItem() {
  const { stores } = useServices();
  const status = useEngine((s) => s.status);
  const error = useEngine((s) => s.error);

  let body;
  if (status === null && error !== null) {
    body = (
      <span>
        Docker: <span className="muted">unknown — {error.message}</span>
      </span>
    );
  } else if (status === null || status.state === 'checking') {
    body = <span>Docker: checking…</span>;
  } else if (status.state === 'ok') {
    body = (
      <span title={status.endpoint}>
        <span className="state-dot state-running" aria-hidden="true" /> Docker {status.version ?? ''} <span className="muted">ok</span>
        {status.engine && status.engine.kind !== 'default' && <span className="muted"> · {status.engine.label}</span>}
      </span>
    );
  } else {
    body = (
      <span className="engine-down" title={status.endpoint}>
        <span className="state-dot state-error" aria-hidden="true" /> Docker unreachable
        {status.message !== null && <span className="engine-message">: {status.message}</span>}
        {status.hint !== null && <span className="engine-hint"> {status.hint}</span>}
      </span>
    );
  }

  return (
    <div className="status-item" role="status" aria-label="Docker engine">
      {body}
      {status?.state === 'unreachable' && (
        <button type="button" className="small" onClick={() => void stores.engine.getState().refresh()}>
          Check Docker again
        </button>
      )}
    </div>
  );
}

/** Another engine in use (a profile that names its own): its place and its health. */
function OtherEngineItem({ status }: { status: EngineStatus }) {
  const label = status.engine?.label ?? status.endpoint;
  return (
    <div className="status-item" role="status" aria-label={`Engine ${label}`}>
      {status.state === 'ok' ? (
        <span title={status.endpoint}>
          <span className="state-dot state-running" aria-hidden="true" /> {label} <span className="muted">ok</span>
        </span>
      ) : status.state === 'checking' ? (
        <span>{label}: checking…</span>
      ) : (
        <span className="engine-down" title={status.endpoint}>
          <span className="state-dot state-error" aria-hidden="true" /> {label} unreachable
          {status.message !== null && <span className="engine-message">: {status.message}</span>}
          {status.hint !== null && <span className="engine-hint"> {status.hint}</span>}
        </span>
      )}
    </div>
  );
}

export function OtherEngineItems() {
  const others = useEngine((s) => s.others);
  return (
    <>
      {others.map((o) => (
        <OtherEngineItem key={o.engine?.id ?? o.endpoint} status={o} />
      ))}
    </>
  );
}

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

export function ConnectionStatusItem() {
  const { reconnectNow } = useServices();
  const transport = useConnection((s) => s.transport);
  const state = useConnection((s) => s.state);
  const retryAt = useConnection((s) => s.retryAt);
  const now = useNow(state === 'reconnecting');
  if (transport !== 'ws') return null;

  const seconds = retryAt === null ? 0 : Math.max(0, Math.ceil((retryAt - now) / 1000));
  const text =
    state === 'open'
      ? 'Connected'
      : state === 'connecting'
        ? 'Connecting…'
        : state === 'reconnecting'
          ? 'Reconnecting…'
          : state === 'expired'
            ? 'Link expired'
            : 'Disconnected';
  return (
    <div className="status-item" role="status" aria-label="Connection">
      <span className={`state-dot ${state === 'open' ? 'state-running' : state === 'expired' ? 'state-error' : 'state-starting'}`} aria-hidden="true" />
      {text}
      {state === 'reconnecting' && seconds > 0 && <span className="muted"> (next try in {seconds} s)</span>}
      {state === 'reconnecting' && (
        <button type="button" className="small" onClick={reconnectNow}>
          Reconnect now
        </button>
      )}
    </div>
  );
}

export function StatusBar() {
  return (
    <footer className="status-bar">
      <EngineStatusItem />
      <OtherEngineItems />
      <PreparationItems />
      <span className="spacer" />
      <ConnectionStatusItem />
    </footer>
  );
}

/**
 * The chat's Network view: what its sandbox asked Berth's proxy for, allowed or refused (time,
 * host, port, bytes), with "Allow this host for the profile" on a refused request. Main keeps
 * the log (network.log) and sends each new request as it finishes (network.request).
 */
import { useEffect, useId, useState } from 'react';
import type { EgressMode, NetworkRequest } from '../../../shared/contract';
import { NETWORK_LOG_LIMIT, allowEntryFor } from '../../../shared/egress';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useServices } from '../../app/context';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { EGRESS_EXPLAINED, canAllowHost, requestResult } from './egressText';

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function NetworkView({ chatId }: { chatId: string }) {
  const { api, later } = useServices();
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<EgressMode | null>(null);
  const [requests, setRequests] = useState<NetworkRequest[]>([]);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [allowedNow, setAllowedNow] = useState<string[]>([]);
  const panelId = useId();

  useEffect(() => {
    let live = true;
    setRequests([]);
    setAllowedNow([]);
    const off = api.on('network.request', (r) => {
      if (r.chatId === chatId) setRequests((list) => [...list.slice(1 - NETWORK_LOG_LIMIT), r]);
    });
    // Requests that finish meanwhile arrive through the subscription above and are merged below.
    (later ?? ((run: () => void) => run()))(() => {
      if (!live) return;
      api.call('network.log', { chatId }).then(
        (log) => {
          if (!live) return;
          setMode(log.mode);
          setRequests((list) => [...log.requests, ...list.filter((r) => !log.requests.some((l) => l.time === r.time && l.host === r.host))]);
        },
        (e) => live && setError(errorInfo(e)),
      );
    });
    return () => {
      live = false;
      off();
    };
  }, [api, later, chatId]);

  const allow = async (r: NetworkRequest) => {
    setError(null);
    try {
      const { entry } = await api.call('network.allow', { chatId, host: r.host, port: r.port });
      setAllowedNow((list) => [...list, entry]);
    } catch (e) {
      setError(errorInfo(e));
    }
  };

  const refused = requests.filter((r) => !r.allowed).length;
  return (
    <section className="network-view" aria-label="Network">
      <button type="button" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)}>
        Network{refused ? ` (${refused} refused)` : ''}
      </button>
      {open && (
        <div id={panelId}>
          {mode && <p className="hint">{EGRESS_EXPLAINED[mode]}</p>}
          {error && <ErrorAlert error={error} />}
          {mode === 'allowlist' && requests.length === 0 && <p className="hint">No requests yet.</p>}
          {requests.length > 0 && (
            // Focusable, so a keyboard scrolls it too (even when no row has a button).
            <div className="network-requests" tabIndex={0} role="region" aria-label="Network requests, newest first">
              <table aria-label="Network requests">
                <thead>
                  <tr>
                    <th>Time</th><th>Host</th><th>Port</th><th>Sent</th><th>Received</th><th>Result</th><th />
                  </tr>
                </thead>
                <tbody>
                  {[...requests].reverse().map((r, i) => (
                    <tr key={`${r.time}-${r.host}-${i}`} className={r.allowed ? 'allowed' : 'refused'}>
                      <td>{new Date(r.time).toLocaleTimeString()}</td>
                      <td>{r.host}</td>
                      <td>{r.port ?? '—'}</td>
                      <td>{bytes(r.bytesOut)}</td>
                      <td>{bytes(r.bytesIn)}</td>
                      <td>{requestResult(r)}</td>
                      <td>
                        {!r.allowed && canAllowHost(r.host) && (
                          allowedNow.includes(allowEntryFor(r.host, r.port))
                            ? <span>Allowed for the profile</span>
                            : <button type="button" onClick={() => void allow(r)} aria-label={`Allow this host for the profile: ${r.host}`}>Allow this host for the profile</button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * The chat's Network view: what its sandbox asked Berth's proxy for, allowed or refused (time,
 * host, port, bytes); its refusals grouped by host and port, each with Allow (once, this chat,
 * or the profile; and the port); and the chat's own allowances, each revocable. Main keeps the
 * log (network.log) and sends each new request as it finishes (network.request) and each change
 * of the chat's allowances (network.grants).
 */
import { useEffect, useId, useState } from 'react';
import type { EgressMode, NetworkRequest } from '../../../shared/contract';
import { NETWORK_LOG_LIMIT, type AllowScope, type ChatGrant } from '../../../shared/egress';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useServices } from '../../services/context';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { EGRESS_EXPLAINED, refusedGroups, requestResult, type RefusedGroup } from './egressText';
import { ChatGrantList, RefusedGroups } from './RefusedGroups';
import { suggestPreset, type EgressPreset } from '../../../shared/egressPresets';

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
  const [grants, setGrants] = useState<ChatGrant[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const panelId = useId();

  useEffect(() => {
    let live = true;
    setRequests([]);
    setGrants([]);
    setNotice(null);
    const off = api.on('network.request', (r) => {
      if (r.chatId === chatId) setRequests((list) => [...list.slice(1 - NETWORK_LOG_LIMIT), r]);
    });
    const offGrants = api.on('network.grants', (g) => {
      if (g.chatId === chatId) setGrants(g.grants);
    });
    // Requests that finish meanwhile arrive through the subscription above and are merged below.
    (later ?? ((run: () => void) => run()))(() => {
      if (!live) return;
      api.call('network.log', { chatId }).then(
        (log) => {
          if (!live) return;
          setMode(log.mode);
          setGrants(log.grants);
          setRequests((list) => [...log.requests, ...list.filter((r) => !log.requests.some((l) => l.time === r.time && l.host === r.host))]);
        },
        (e) => live && setError(errorInfo(e)),
      );
    });
    return () => {
      live = false;
      off();
      offGrants();
    };
  }, [api, later, chatId]);

  const allow = async (g: RefusedGroup, scope: AllowScope, port: number | null) => {
    setError(null);
    try {
      const result = await api.call('network.allow', { chatId, host: g.host, port, scope });
      setGrants(result.grants);
      setNotice(scope === 'profile' ? `Allowed ${result.entry} for the profile.` : `Allowed ${result.entry} ${scope === 'once' ? 'once, for 10 minutes' : 'for this chat'}.`);
    } catch (e) {
      setError(errorInfo(e));
    }
  };

  /** Adds each of the preset's hosts (80 and 443) to the profile's list. */
  const addPreset = async (preset: EgressPreset) => {
    setError(null);
    try {
      for (const host of preset.hosts) await api.call('network.allow', { chatId, host, port: null, scope: 'profile' });
      setNotice(`Added the ${preset.label} preset to the profile.`);
    } catch (e) {
      setError(errorInfo(e));
    }
  };

  const revoke = async (entry: string) => {
    setError(null);
    try {
      setGrants((await api.call('network.revoke', { chatId, entry })).grants);
      setNotice(`Revoked ${entry}.`);
    } catch (e) {
      setError(errorInfo(e));
    }
  };

  const refused = requests.filter((r) => !r.allowed).length;
  // Refused hosts are not on the list, so no preset that would cover them is on it in full.
  const suggestion = mode === 'allowlist' ? suggestPreset(requests.filter((r) => !r.allowed), []) : null;
  return (
    <section className="network-view" aria-label="Network">
      <button type="button" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)}>
        Network{refused ? ` (${refused} refused)` : ''}
      </button>
      {open && (
        <div id={panelId}>
          {mode && <p className="hint">{EGRESS_EXPLAINED[mode]}</p>}
          {error && <ErrorAlert error={error} />}
          <p role="status" className="hint">{notice}</p>
          <ChatGrantList grants={grants} onRevoke={(entry) => void revoke(entry)} />
          <RefusedGroups groups={refusedGroups(requests)} onAllow={allow} />
          {suggestion && (
            <p className="hint">
              {`${suggestion.covered} refused ${suggestion.covered === 1 ? 'request' : 'requests'} here would pass with the ${suggestion.preset.label} preset (${suggestion.preset.hosts.join(', ')}).`}{' '}
              <button type="button" onClick={() => void addPreset(suggestion.preset)}>Add the {suggestion.preset.label} preset to the profile</button>
            </p>
          )}
          {mode === 'allowlist' && requests.length === 0 && <p className="hint">No requests yet.</p>}
          {requests.length > 0 && (
            // Focusable, so a keyboard scrolls it too (even when no row has a button).
            <div className="network-requests" tabIndex={0} role="region" aria-label="Network requests, newest first">
              <table aria-label="Network requests">
                <thead>
                  <tr>
                    <th>Time</th><th>Host</th><th>Port</th><th>Sent</th><th>Received</th><th>Result</th>
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

/**
 * The chat's Ports section: the ports its sandbox listens on (main reads them inside the
 * sandbox: ports.list, asked again every few seconds while the section is open), each with a
 * forward to 127.0.0.1 on this computer: "Open in browser" and "Copy URL" (README: Ports).
 */
import { useCallback, useEffect, useId, useState } from 'react';
import type { ListeningPortView } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions } from '../../services/context';
import { portsActions } from './actions';
import { ErrorAlert } from '../../ui/ErrorAlert';

/** A server the user just started shows up within this long while the section is open. */
const REFRESH_MS = 3000;

export function PortsView({ chatId }: { chatId: string }) {
  const portCalls = useActions(portsActions);
  const [open, setOpen] = useState(false);
  const [running, setRunning] = useState(false);
  const [ports, setPorts] = useState<ListeningPortView[]>([]);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [copied, setCopied] = useState<number | null>(null);
  /** The project environment's forwardPorts, with their portsAttributes labels. */
  const [declared, setDeclared] = useState<{ port: number; label: string | null }[]>([]);
  const panelId = useId();

  useEffect(() => {
    if (!open) return;
    let live = true;
    portCalls.declared(chatId).then((ports) => live && setDeclared(ports), () => undefined);
    return () => {
      live = false;
    };
  }, [portCalls, chatId, open]);
  const labelOf = (port: number) => declared.find((d) => d.port === port)?.label ?? null;
  const waiting = declared.filter((d) => !ports.some((p) => p.port === d.port));

  const refresh = useCallback(async (live: () => boolean = () => true) => {
    try {
      const answer = await portCalls.list(chatId);
      if (!live()) return;
      setRunning(answer.running);
      setPorts(answer.ports);
    } catch (e) {
      if (live()) setError(errorInfo(e));
    }
  }, [portCalls, chatId]);

  useEffect(() => {
    if (!open) return;
    let live = true;
    void refresh(() => live);
    const timer = setInterval(() => void refresh(() => live), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [open, refresh]);

  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      await refresh();
    } catch (e) {
      setError(errorInfo(e));
    }
  };

  const copy = async (p: ListeningPortView) => {
    if (!p.forward) return;
    try {
      await navigator.clipboard.writeText(p.forward.url);
      setCopied(p.port);
    } catch (e) {
      setError(errorInfo(e));
    }
  };

  return (
    <section className="ports-view" aria-label="Ports">
      <button type="button" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)}>
        Ports{ports.length ? ` (${ports.length})` : ''}
      </button>
      {open && (
        <div id={panelId}>
          {error && <ErrorAlert error={error} />}
          {!running && <p className="hint">The sandbox is not running: start a server in the chat and its ports show here.</p>}
          {running && ports.length === 0 && <p className="hint">Nothing listens in the sandbox yet.</p>}
          {ports.length > 0 && (
            <ul aria-label="Listening ports">
              {ports.map((p) => (
                <li key={p.port}>
                  <span>Port {p.port}{labelOf(p.port) ? ` (${labelOf(p.port)})` : ''}</span>
                  {p.forward ? (
                    <>
                      {' '}
                      <a href={p.forward.url} target="_blank" rel="noopener noreferrer">Open in browser</a>{' '}
                      <button type="button" onClick={() => void copy(p)}>{copied === p.port ? 'Copied' : 'Copy URL'}</button>{' '}
                      <button type="button" onClick={() => void act(() => portCalls.close(chatId, p.port))} aria-label={`Stop forwarding port ${p.port}`}>Stop forwarding</button>
                    </>
                  ) : (
                    <>
                      {' '}
                      <button type="button" onClick={() => void act(() => portCalls.open(chatId, p.port))} aria-label={`Forward port ${p.port}`}>Forward to this computer</button>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
          {waiting.length > 0 && (
            <p className="hint">
              The project&apos;s environment forwards {waiting.map((d) => (d.label ? `${d.port} (${d.label})` : String(d.port))).join(', ')}: {waiting.length > 1 ? 'they show' : 'it shows'} here once something listens there.
            </p>
          )}
          <p className="hint">A forward listens on 127.0.0.1 only; its link lets only the browser that opens it in.</p>
        </div>
      )}
    </section>
  );
}

/**
 * The chat's project environment (README: Environments): when an attached folder holds a
 * devcontainer.json, "Use this project's environment" (a choice when there are several; the
 * folder's last choice is remembered and used again for its next chat); while it is prepared,
 * what it does; then which file the chat runs, when it was prepared and its size, what Berth
 * ignored and why, and Rebuild.
 */
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { ChatView, EnvironmentStatus, Response } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions } from '../../services/context';
import { environmentActions } from './actions';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatBytes } from '../../ui/format';

type Offers = Response<'environment.detect'>['offers'];

function folderName(p: string): string {
  return p.split(/[\\/]/).filter(Boolean).pop() ?? p;
}

export function EnvironmentView({ chat }: { chat: ChatView }) {
  const environment = useActions(environmentActions);
  const [offers, setOffers] = useState<Offers>([]);
  const [status, setStatus] = useState<EnvironmentStatus | null>(null);
  const [choice, setChoice] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [detailsOpen, setDetailsOpen] = useState(false);
  const [step, setStep] = useState<string | null>(null);
  const detailsId = useId();
  const autoUsed = useRef(false);
  const folders = chat.attachments.map((a) => a.hostPath).join('\n');

  const use = useCallback(async (folder: string, config: string, rebuild = false) => {
    setBusy(true);
    setError(null);
    try {
      setStatus(rebuild ? await environment.rebuild(chat.id) : await environment.use(chat.id, folder, config));
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
      setStep(null);
    }
  }, [environment, chat.id]);

  useEffect(() => {
    let live = true;
    environment.detect(chat.id).then(
      (answer) => {
        if (!live) return;
        setOffers(answer.offers);
        setStatus(answer.status);
        const first = answer.offers.find((o) => o.remembered) ?? answer.offers[0];
        if (first) setChoice(`${first.folder}\n${first.remembered ?? first.configs[0] ?? ''}`);
        // The folder's choice is remembered: its next chat uses the same environment by itself.
        const remembered = answer.offers.find((o) => o.remembered);
        if (remembered?.remembered && answer.status.state === 'none' && !autoUsed.current) {
          autoUsed.current = true;
          void use(remembered.folder, remembered.remembered);
        }
      },
      (e: unknown) => live && setError(errorInfo(e)),
    );
    return () => {
      live = false;
    };
  }, [environment, chat.id, folders, use]);

  useEffect(() => environment.watch(chat.id, { status: setStatus, step: (message) => busy && setStep(message) }), [environment, chat.id, busy]);

  if (offers.length === 0 && (!status || status.state === 'none')) return null;
  const choices = offers.flatMap((o) => o.configs.map((c) => ({ value: `${o.folder}\n${c}`, label: offers.length > 1 ? `${folderName(o.folder)}: ${c}` : c })));
  const [folder = '', config = ''] = choice.split('\n');
  const preparing = busy || status?.state === 'preparing';

  return (
    <section className="environment-view" aria-label="Project environment">
      {status?.state === 'ready' && status.source ? (
        <p className="environment-summary">
          <span className="badge" title="The project environment this chat runs">Environment: {status.source}</span>{' '}
          <span>
            {status.reused ? 'reused, ' : ''}prepared {status.preparedAt ? new Date(status.preparedAt).toLocaleString() : 'now'}
            {status.sizeBytes !== null ? `, ${formatBytes(status.sizeBytes)}` : ''}
          </span>{' '}
          <button type="button" disabled={preparing} onClick={() => void use(status.folder ?? '', status.source ?? '', true)}>Rebuild</button>{' '}
          <button type="button" aria-expanded={detailsOpen} aria-controls={detailsId} onClick={() => setDetailsOpen(!detailsOpen)}>Environment details</button>
        </p>
      ) : (
        !preparing && choices.length > 0 && (
          <p className="environment-offer">
            <span>This project has a devcontainer.json.</span>{' '}
            {choices.length > 1 && (
              <select aria-label="Which devcontainer.json" value={choice} onChange={(e) => setChoice(e.target.value)}>
                {choices.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
              </select>
            )}{' '}
            <button type="button" onClick={() => void use(folder, config)}>Use this project&apos;s environment</button>
          </p>
        )
      )}
      {preparing && (
        <p className="environment-progress" role="status" aria-label="Environment progress">
          Preparing the project&apos;s environment{status?.source ? ` (${status.source})` : ''}: {step ?? 'starting…'}
        </p>
      )}
      {error && <ErrorAlert error={error} label="Environment error" onDismiss={() => setError(null)} />}
      {!error && status?.state === 'failed' && status.error && (
        <ErrorAlert error={{ code: 'environment', message: status.error.message, hint: status.error.hint }} label="Environment error" />
      )}
      {detailsOpen && status && (
        <div id={detailsId} className="environment-details">
          <p>From {status.folder ? `${folderName(status.folder)}/` : ''}{status.source}; image {status.image}.</p>
          {status.workspaceFolder && <p>Terminals and the agent start in {status.workspaceFolder}.</p>}
          {status.ports.length > 0 && (
            <p>Ports it forwards: {status.ports.map((p) => (p.label ? `${p.port} (${p.label})` : String(p.port))).join(', ')}; open them in Ports.</p>
          )}
          {status.ignored.length > 0 && (
            <>
              <p>Ignored:</p>
              <ul aria-label="Ignored settings">
                {status.ignored.map((i) => <li key={i.key}><code>{i.key}</code>: {i.reason}</li>)}
              </ul>
            </>
          )}
          {status.notes.map((n) => <p key={n} className="hint">{n}</p>)}
        </div>
      )}
    </section>
  );
}

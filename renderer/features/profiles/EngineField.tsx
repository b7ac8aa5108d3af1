/**
 * The profile's engine: where its sandboxes run. Each kind's fields, checked by the schema main
 * checks them with (profileForm.engineFromForm), each error beside its field; "Check connection"
 * asks main to ping that engine (key files only once saved with the profile); and, when an edit changes the engine,
 * what happens to chats whose sandbox is running (they stay where they are until it stops).
 */
import { useEffect, useId, useState } from 'react';
import type { DockerContextView, EngineSetting, EngineStatus } from '../../../shared/contract';
import { errorInfo } from '../../api/errors';
import { useServices } from '../../services/context';
import { engineFromForm, type EngineFieldName, type EngineResult, type ProfileFormValues } from './profileForm';

const KINDS: { value: EngineSetting['kind']; label: string }[] = [
  { value: 'default', label: "This computer's Docker (default)" },
  { value: 'context', label: 'A Docker context' },
  { value: 'ssh', label: 'Docker over SSH (ssh://user@host)' },
  { value: 'tcp', label: 'Docker over TCP with TLS (tcp://host:port)' },
  { value: 'podman', label: 'A Podman socket' },
];

/** A text field whose error, when shown, is next to it and describes it. */
function PathInput(props: { label: string; value: string; onChange(v: string): void; error: string | undefined; placeholder?: string; hint?: string }) {
  const id = useId();
  const said = props.error ?? props.hint;
  return (
    <div className="field">
      <label className="field-control">
        <span className="field-label">{props.label}</span>
        <input
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          spellCheck={false}
          placeholder={props.placeholder}
          aria-invalid={props.error ? true : undefined}
          aria-describedby={said ? id : undefined}
        />
      </label>
      {said !== undefined && (
        <span className={props.error ? 'field-error' : 'field-hint'} id={id}>
          {said}
        </span>
      )}
    </div>
  );
}

/** The user's Docker contexts, as `docker context ls` lists them (asked of main when needed). */
function useContexts(wanted: boolean): DockerContextView[] | null {
  const { api } = useServices();
  const [contexts, setContexts] = useState<DockerContextView[] | null>(null);
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    api.call('engine.contexts', {}).then(
      (r) => live && setContexts(r.contexts),
      () => live && setContexts([]),
    );
    return () => {
      live = false;
    };
  }, [api, wanted]);
  return contexts;
}

type Check = { for: string; state: 'checking' } | { for: string; state: 'done'; status: EngineStatus } | { for: string; state: 'failed'; text: string };

export interface EngineFieldProps {
  values: ProfileFormValues;
  set<K extends keyof ProfileFormValues>(key: K, value: ProfileFormValues[K]): void;
  /** Show the fields' errors (after a save or check was tried). */
  showErrors: boolean;
  onTried(): void;
  /** The engine saved for the profile being edited (null for a new one). */
  saved: EngineSetting | null;
  /**
   * The profile being edited (null for a new one): main reads the key files a check names only
   * when they are the ones saved with it, and otherwise answers to save first.
   */
  profile: string | null;
}

export function EngineField({ values, set, showErrors, onTried, saved, profile }: EngineFieldProps) {
  const { api } = useServices();
  const result: EngineResult = engineFromForm(values);
  const errors = showErrors && !result.ok ? result.errors : {};
  const contexts = useContexts(values.engineKind === 'context');
  const [check, setCheck] = useState<Check | null>(null);
  const current = result.ok ? JSON.stringify(result.setting) : null;
  // An answer about another address than the one in the fields now is not shown.
  const shown = check && check.for === current ? check : null;
  const kindId = useId();
  // Picking "a Docker context" starts at the one the docker command uses now.
  const pick = contexts && values.engineKind === 'context' && values.contextName === '' ? (contexts.find((c) => c.current) ?? contexts[0] ?? null) : null;
  useEffect(() => {
    if (pick) set('contextName', pick.name);
  }, [pick, set]);

  const field = (name: EngineFieldName) => ({ value: values[name], onChange: (v: string) => set(name, v), error: errors[name] });

  const runCheck = async () => {
    onTried();
    if (!result.ok) return;
    const key = JSON.stringify(result.setting);
    setCheck({ for: key, state: 'checking' });
    try {
      const status = await api.call('engine.check', { engine: result.setting, ...(profile ? { profile } : {}) });
      setCheck({ for: key, state: 'done', status });
    } catch (error) {
      const info = errorInfo(error);
      setCheck({ for: key, state: 'failed', text: `${info.message}${info.hint ? ` ${info.hint}` : ''}` });
    }
  };

  const changed = saved !== null && result.ok && JSON.stringify(result.setting) !== JSON.stringify(saved);
  const contextOptions = contexts ?? [];
  // A context saved before, now missing from the Docker config, stays choosable (and says so when checked).
  const listed = values.contextName && !contextOptions.some((c) => c.name === values.contextName) ? [{ name: values.contextName, host: 'not in your Docker config', current: false }, ...contextOptions] : contextOptions;

  return (
    <div className="engine-field field-wide">
      <div className="field">
        <label className="field-control" htmlFor={kindId}>
          <span className="field-label">Engine</span>
        </label>
        <select id={kindId} value={values.engineKind} onChange={(e) => set('engineKind', e.target.value as EngineSetting['kind'])}>
          {KINDS.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </select>
      </div>
      {values.engineKind === 'context' && (
        <div className="field">
          <label className="field-control">
            <span className="field-label">Docker context</span>
            <select value={values.contextName} onChange={(e) => set('contextName', e.target.value)} aria-invalid={errors.contextName ? true : undefined}>
              {contexts === null && (
                <option value="" disabled>
                  Reading your Docker config…
                </option>
              )}
              {listed.map((c) => (
                <option key={c.name} value={c.name}>
                  {`${c.name} — ${c.host}${c.current ? ' (current)' : ''}`}
                </option>
              ))}
            </select>
          </label>
          {errors.contextName && <span className="field-error">{errors.contextName}</span>}
        </div>
      )}
      {values.engineKind === 'ssh' && (
        <>
          <PathInput label="Engine address" placeholder="ssh://me@build-box:22" {...field('engineUrl')} />
          <PathInput label="SSH key file" placeholder="/home/me/.ssh/id_ed25519" hint="Empty: your SSH agent's keys." {...field('sshKey')} />
        </>
      )}
      {values.engineKind === 'tcp' && (
        <>
          <PathInput label="Engine address" placeholder="tcp://build-box:2376" {...field('engineUrl')} />
          <PathInput label="CA certificate file" placeholder="/home/me/.docker/ca.pem" {...field('tlsCa')} />
          <PathInput label="Client certificate file" placeholder="/home/me/.docker/cert.pem" {...field('tlsCert')} />
          <PathInput label="Client key file" placeholder="/home/me/.docker/key.pem" {...field('tlsKey')} />
        </>
      )}
      {values.engineKind === 'podman' && <PathInput label="Podman socket" placeholder="/run/podman/podman.sock" {...field('podmanSocket')} />}
      {(values.engineKind === 'ssh' || values.engineKind === 'tcp') && (
        <p className="muted field-note">
          On another machine, attached folders are copied there: changes come back only through Apply in Changes, and read-write folders are refused.
        </p>
      )}
      <div className="engine-check">
        <button type="button" className="small" onClick={() => void runCheck()} disabled={shown?.state === 'checking'}>
          Check connection
        </button>
        {shown && (
          <span role="status" aria-label="Connection check" className={shown.state === 'checking' ? 'muted' : shown.state === 'done' && shown.status.state === 'ok' ? 'check-ok' : 'field-error'}>
            {shown.state === 'checking'
              ? 'Checking…'
              : shown.state === 'failed'
                ? shown.text
                : shown.status.state === 'ok'
                  ? `Docker ${shown.status.version ?? ''} answers at ${shown.status.endpoint}.`
                  : `${shown.status.message ?? 'The engine does not answer.'}${shown.status.hint ? ` ${shown.status.hint}` : ''}`}
          </span>
        )}
      </div>
      {changed && (
        <p className="warning" role="note" aria-label="Engine change">
          A chat whose sandbox is running keeps running on the engine it started on until its sandbox stops (Stop in its sandbox details, or the idle stop); its
          sandbox details say so meanwhile. Its next start is on the new engine: attached folders go with it, its home folder and installed packages stay on the old
          engine.
        </p>
      )}
    </div>
  );
}

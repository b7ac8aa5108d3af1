/** Create or edit one profile. The local backend's lack of any sandbox is said plainly. */
import { cloneElement, isValidElement, useEffect, useId, useRef, useState, type FormEvent, type ReactElement, type ReactNode } from 'react';
import type { ProfileView } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useProfiles, useServices } from '../../services/context';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatBytes } from '../../ui/format';
import { LOCAL_WARNING, MESSAGES } from '../../ui/messages';
import { AgentKeyField, type AgentKeyHandle } from './AgentKeyField';
import { ImageField } from './ImageField';
import { EgressFields, allowlistEngineNote, allowProblems } from '../network';
import { EngineField } from './EngineField';
import { changedSettings, engineFromForm, formChanged, formFromProfile, NEW_PROFILE, settingsFromForm, type ProfileFormValues } from './profileForm';

export interface ProfileFormProps {
  /** The profile being edited; none: a new one. */
  profile: ProfileView | null;
  onSaved(profile: ProfileView): void;
  /** Opens saying "Saved." (the profile was just created). */
  initiallySaved?: boolean;
  /** Told whether the form holds edits not saved yet. */
  onDirtyChange?(dirty: boolean): void;
  /** Opened to set up the agent (a chat's "Open profile settings"): the first empty agent field takes the focus. */
  focusAgent?: boolean;
}

/** A labelled control; its hint describes the control (aria-describedby) without joining its name. */
function Field({ label, children, hint }: { label: string; children: ReactNode; hint?: string }) {
  const hintId = useId();
  const described = hint !== undefined && isValidElement(children) && typeof children.type === 'string';
  return (
    <div className="field">
      <label className="field-control">
        <span className="field-label">{label}</span>
        {described ? cloneElement(children as ReactElement<{ 'aria-describedby'?: string }>, { 'aria-describedby': hintId }) : children}
      </label>
      {hint !== undefined && (
        <span className="field-hint" id={hintId}>
          {hint}
        </span>
      )}
    </div>
  );
}

/** The engine's CPUs and memory (null until known, or when it does not answer): a profile cannot ask for more. */
function useEngineResources(): { cpus: number; memoryBytes: number } | null {
  const { api } = useServices();
  const [resources, setResources] = useState<{ cpus: number; memoryBytes: number } | null>(null);
  useEffect(() => {
    let live = true;
    api.call('engine.resources', {}).then(
      (r) => live && setResources(r),
      // The engine is down: the status bar says so; saving checks again in main.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api]);
  return resources;
}

export function ProfileForm({ profile, onSaved, initiallySaved = false, onDirtyChange, focusAgent = false }: ProfileFormProps) {
  const { api, stores } = useServices();
  const keyField = useRef<AgentKeyHandle>(null);
  const [values, setValues] = useState<ProfileFormValues>(() => (profile ? formFromProfile(profile) : NEW_PROFILE));
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [saved, setSaved] = useState(initiallySaved);
  const [busy, setBusy] = useState(false);
  /** The engine fields' errors show once a save or a check was tried, then follow the typing. */
  const [engineTried, setEngineTried] = useState(false);
  const [allowTried, setAllowTried] = useState(false);
  const allowRef = useRef<HTMLTextAreaElement>(null);
  const networkRef = useRef<HTMLSelectElement>(null);
  const baseUrlRef = useRef<HTMLInputElement>(null);
  const modelRef = useRef<HTMLInputElement>(null);
  // Opened to set up the agent: the focus goes to the first agent field still empty, once, when the
  // form for that profile appears (the dialog may open before the list arrives, on another form).
  // (data-autofocus too, for when the dialog opens on this form and focuses after it.)
  const [agentFocus] = useState<'baseUrl' | 'model'>(() => (values.baseUrl !== '' && values.model === '' ? 'model' : 'baseUrl'));
  useEffect(() => {
    if (!focusAgent) return;
    (agentFocus === 'model' || values.providerFrom !== '' ? modelRef : baseUrlRef).current?.focus();
    // Once per form (focusAgent only): later typing must not move the focus.
  }, [focusAgent]);
  const editing = profile !== null;
  // Profiles with a provider of their own can be shared (one step: never a profile that shares one).
  const providers = useProfiles((st) => st.profiles)
    .filter((p) => p.name !== profile?.name && !p.settings.agent.providerFrom)
    .map((p) => p.name);
  const sharing = values.providerFrom !== '';
  const engine = useEngineResources();
  const engineCpus = engine && engine.cpus > 0 ? engine.cpus : null;
  // What the form opened with, or last saved: edits are what differs from it.
  const [baseline, setBaseline] = useState(values);
  const dirty = formChanged(baseline, values);
  useEffect(() => {
    onDirtyChange?.(dirty);
  }, [dirty, onDirtyChange]);

  const set = <K extends keyof ProfileFormValues>(key: K, value: ProfileFormValues[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setSaved(false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!engineFromForm(values).ok) {
      // Said beside each engine field, not again here.
      setEngineTried(true);
      return;
    }
    if (allowlistEngineNote(values.egress, values.engineKind)) {
      // Said beside the network (as soon as the engine was picked), not again here; the focus goes there.
      networkRef.current?.focus();
      return;
    }
    if (values.egress === 'allowlist' && allowProblems(values.egressAllow).length > 0) {
      // Named by line beside the allowlist, not again here; the focus goes there.
      setAllowTried(true);
      allowRef.current?.focus();
      return;
    }
    const result = settingsFromForm(values);
    if (!result.ok) {
      setError({ code: 'invalid_request', message: result.message, hint: null });
      return;
    }
    setBusy(true);
    try {
      let view: ProfileView;
      if (editing) {
        const patch = changedSettings(profile.settings, result.settings);
        view = Object.keys(patch).length === 0 ? profile : await stores.profiles.getState().update(profile.name, patch);
      } else {
        view = await stores.profiles.getState().create({ ...result.settings, name: values.name.trim() });
      }
      // One save stores everything the form shows: the pasted key too, bound to the URL just saved.
      const key = keyField.current?.pending() ?? null;
      if (key !== null) {
        try {
          keyField.current?.stored(await api.call('agent.setKey', { profile: view.name, apiKey: key }));
        } catch (e) {
          onSaved(view);
          const info = errorInfo(e);
          setError({ ...info, message: `The settings were saved, but the API key was not: ${info.message}` });
          setBaseline(values);
          return;
        }
      }
      setSaved(true);
      setBaseline(values);
      onSaved(view);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  const docker = values.backend === 'docker';
  return (
    <form className="profile-form" onSubmit={(e) => void submit(e)} aria-label={editing ? `Edit profile ${profile.name}` : 'New profile'}>
      <h3 className="form-title">{editing ? `Profile “${profile.name}”` : 'New profile'}</h3>
      <Field label="Name">
        <input value={values.name} onChange={(e) => set('name', e.target.value)} readOnly={editing} required maxLength={64} data-autofocus={editing ? undefined : true} />
      </Field>
      {/* The backend is Berth's own configuration: the window can see it, never change it. */}
      <Field label="Backend">
        <input value={values.backend === 'docker' ? 'docker — a container per chat' : 'local — no sandbox'} readOnly />
      </Field>
      {values.backend === 'local' && (
        <p className="warning" role="note">
          <strong>Warning:</strong> {LOCAL_WARNING}.
        </p>
      )}
      <fieldset className="field-grid" disabled={!docker}>
        <legend>Sandbox</legend>
        <EngineField values={values} set={set} showErrors={engineTried} onTried={() => setEngineTried(true)} saved={editing ? profile.settings.engine : null} profile={editing ? profile.name : null} />
        <EgressFields values={values} set={set} showErrors={allowTried} allowRef={allowRef} networkRef={networkRef} engineKind={values.engineKind} />
        <Field label="Container scope">
          <select value={values.containerScope} onChange={(e) => set('containerScope', e.target.value as ProfileFormValues['containerScope'])}>
            <option value="chat">One container per chat</option>
            <option value="shared">One shared by the profile's chats</option>
          </select>
        </Field>
        <Field label="Image" hint="Choose one this computer has, or any image a registry serves.">
          <ImageField value={values.image} onChange={(image) => set('image', image)} />
        </Field>
        {/* Memory has no max: Docker takes a limit above the machine's memory; CPUs it refuses. */}
        <Field label="Memory (MB)" hint={engine && engine.memoryBytes > 0 ? `This engine has ${formatBytes(engine.memoryBytes)} of memory.` : undefined}>
          <input type="number" min={64} step={64} value={values.memoryMb} onChange={(e) => set('memoryMb', e.target.value)} />
        </Field>
        <Field label="CPUs" hint={engineCpus !== null ? `This engine has ${engineCpus} CPU${engineCpus === 1 ? '' : 's'}.` : undefined}>
          <input type="number" min={0.1} max={engineCpus ?? undefined} step={0.1} value={values.cpus} onChange={(e) => set('cpus', e.target.value)} />
        </Field>
        <Field label="Process limit">
          <input type="number" min={16} step={1} value={values.pids} onChange={(e) => set('pids', e.target.value)} />
        </Field>
        <Field label="Idle stop (minutes)" hint="0 keeps it running">
          <input type="number" min={0} step={1} value={values.idleStopMinutes} onChange={(e) => set('idleStopMinutes', e.target.value)} />
        </Field>
        <Field label="Warm sandboxes" hint="started ahead, so a new chat answers at once; each is an idle running container until a chat takes it">
          <input type="number" min={0} max={8} step={1} value={values.warmPool} onChange={(e) => set('warmPool', e.target.value)} />
        </Field>
        <Field label="On quit">
          <select value={values.onQuit} onChange={(e) => set('onQuit', e.target.value as ProfileFormValues['onQuit'])}>
            <option value="stop">Stop containers</option>
            <option value="keep">Keep them running</option>
          </select>
        </Field>
        <label className="check">
          <input type="checkbox" checked={values.mountWorkspace} onChange={(e) => set('mountWorkspace', e.target.checked)} />
          Mount attached folders (workspace)
        </label>
      </fieldset>
      <fieldset className="field-grid">
        <legend>Agent</legend>
        {(providers.length > 0 || sharing) && (
          <Field label="Provider">
            <select value={values.providerFrom} onChange={(e) => set('providerFrom', e.target.value)}>
              <option value="">Its own</option>
              {[...new Set([...providers, ...(sharing ? [values.providerFrom] : [])])].map((name) => (
                <option key={name} value={name}>
                  {MESSAGES.sharedProvider(name)}
                </option>
              ))}
            </select>
          </Field>
        )}
        {!sharing && (
          <Field label="Provider URL">
            <input
              value={values.baseUrl}
              onChange={(e) => set('baseUrl', e.target.value)}
              inputMode="url"
              spellCheck={false}
              placeholder="https://api.openai.com/v1"
              ref={baseUrlRef}
              data-autofocus={focusAgent && agentFocus === 'baseUrl' ? true : undefined}
            />
          </Field>
        )}
        <Field label="Model">
          <input
            value={values.model}
            onChange={(e) => set('model', e.target.value)}
            spellCheck={false}
            placeholder="gpt-4o-mini"
            ref={modelRef}
            data-autofocus={focusAgent && agentFocus === 'model' ? true : undefined}
          />
        </Field>
        <Field label="Approval">
          <select value={values.approval} onChange={(e) => set('approval', e.target.value as ProfileFormValues['approval'])}>
            <option value="ask">Ask before each command</option>
            <option value="auto">Run automatically</option>
          </select>
        </Field>
        <p className="muted field-note">Any OpenAI-compatible endpoint. Its commands run only in this profile&apos;s sandboxes.</p>
        {sharing ? (
          <p className="muted field-note">{MESSAGES.sharedProviderNote(values.providerFrom)}</p>
        ) : (
          <AgentKeyField profile={editing ? profile.name : null} handle={keyField} formBaseUrl={values.baseUrl} />
        )}
      </fieldset>
      <fieldset className="field-grid" disabled={!docker}>
        <legend>Setup</legend>
        <Field label="Setup command" hint="run once as root in a build of the image, with this profile's egress and nothing of yours (for example apt-get install -y nodejs); new chats start from the result">
          <input type="text" value={values.setupCommand} onChange={(e) => set('setupCommand', e.target.value)} />
        </Field>
      </fieldset>
      {editing && <p className="muted boundary">{profile.boundary}</p>}
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      <div className="form-buttons">
        {saved && (
          <span role="status" className="saved">
            Saved.
          </span>
        )}
        <button type="submit" className="primary" disabled={busy}>
          Save profile
        </button>
      </div>
    </form>
  );
}

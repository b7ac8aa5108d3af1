/** The profile form's values (as typed) and their conversion to the contract's settings. */
import { DEFAULT_EGRESS_ALLOW, EngineSetting, type EgressMode, type ProfileSettings, type ProfileSettingsInput, type ProfileView } from '../../../shared/contract';
import { BERTH_BASE_IMAGE } from '../../../shared/contract';
import { allowFromText } from '../network';

export interface ProfileFormValues {
  name: string;
  backend: 'docker' | 'local';
  egress: EgressMode;
  /** The allowlist as typed: one host, *.domain or host:port a line. */
  egressAllow: string;
  containerScope: 'chat' | 'shared';
  image: string;
  memoryMb: string;
  cpus: string;
  pids: string;
  idleStopMinutes: string;
  onQuit: 'stop' | 'keep';
  /** Started sandboxes kept ready for new chats. */
  warmPool: string;
  /** Run once as root in a build step of the image (empty: none). */
  setupCommand: string;
  mountWorkspace: boolean;
  /** The agent's provider and model, as typed (empty: none), and its approval rule. */
  baseUrl: string;
  model: string;
  /** The profile whose provider (URL and key) this one shares; '' for its own. */
  providerFrom: string;
  approval: 'ask' | 'auto';
  /** Where the sandboxes run (shared/engines.ts), each kind's fields as typed. */
  engineKind: EngineSetting['kind'];
  contextName: string;
  /** ssh:// or tcp:// address. */
  engineUrl: string;
  sshKey: string;
  tlsCa: string;
  tlsCert: string;
  tlsKey: string;
  podmanSocket: string;
}

export type EngineFieldName = 'contextName' | 'engineUrl' | 'sshKey' | 'tlsCa' | 'tlsCert' | 'tlsKey' | 'podmanSocket';
export type EngineResult = { ok: true; setting: EngineSetting } | { ok: false; errors: Partial<Record<EngineFieldName, string>> };

/** What each path field must hold, said in words (the schema's own text is about any path). */
const PATH_WORDS: Partial<Record<EngineFieldName, string>> = {
  sshKey: 'Give the full path of the SSH key file (starting with /), or leave it empty to use your SSH agent.',
  tlsCa: 'Give the full path of the CA certificate file (starting with /).',
  tlsCert: 'Give the full path of the client certificate file (starting with /).',
  tlsKey: 'Give the full path of the client key file (starting with /).',
  podmanSocket: 'Give the full path of the Podman socket (starting with /), such as /run/podman/podman.sock.',
};

/** The form's engine fields → the setting, checked by the same schema main checks it with. */
export function engineFromForm(v: ProfileFormValues): EngineResult {
  const raw =
    v.engineKind === 'default'
      ? { kind: 'default' }
      : v.engineKind === 'context'
        ? { kind: 'context', name: v.contextName }
        : v.engineKind === 'ssh'
          ? { kind: 'ssh', url: v.engineUrl, identityFile: v.sshKey.trim() === '' ? null : v.sshKey.trim() }
          : v.engineKind === 'tcp'
            ? { kind: 'tcp', url: v.engineUrl, tls: { ca: v.tlsCa.trim(), cert: v.tlsCert.trim(), key: v.tlsKey.trim() } }
            : { kind: 'podman', socketPath: v.podmanSocket.trim() };
  const parsed = EngineSetting.safeParse(raw);
  if (parsed.success) return { ok: true, setting: parsed.data };
  const errors: Partial<Record<EngineFieldName, string>> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.join('.');
    const field: EngineFieldName | null =
      key === 'name' ? 'contextName'
      : key === 'url' ? 'engineUrl'
      : key === 'identityFile' ? 'sshKey'
      : key === 'tls.ca' ? 'tlsCa'
      : key === 'tls.cert' ? 'tlsCert'
      : key === 'tls.key' ? 'tlsKey'
      : key === 'socketPath' ? 'podmanSocket'
      : null;
    if (field === null || errors[field]) continue;
    // The address rules' messages are the schema's own words; paths get their field's.
    errors[field] = field === 'engineUrl' ? issue.message : field === 'contextName' ? 'Choose a Docker context.' : (PATH_WORDS[field] as string);
  }
  return { ok: false, errors };
}

function engineFields(e: EngineSetting): Pick<ProfileFormValues, 'engineKind' | 'contextName' | 'engineUrl' | 'sshKey' | 'tlsCa' | 'tlsCert' | 'tlsKey' | 'podmanSocket'> {
  return {
    engineKind: e.kind,
    contextName: e.kind === 'context' ? e.name : '',
    engineUrl: e.kind === 'ssh' || e.kind === 'tcp' ? e.url : '',
    sshKey: e.kind === 'ssh' ? (e.identityFile ?? '') : '',
    tlsCa: e.kind === 'tcp' ? e.tls.ca : '',
    tlsCert: e.kind === 'tcp' ? e.tls.cert : '',
    tlsKey: e.kind === 'tcp' ? e.tls.key : '',
    podmanSocket: e.kind === 'podman' ? e.socketPath : '',
  };
}

/** The contract's defaults, for a new profile. */
export const NEW_PROFILE: ProfileFormValues = {
  name: '',
  backend: 'docker',
  egress: 'allowlist',
  egressAllow: DEFAULT_EGRESS_ALLOW.join('\n'),
  containerScope: 'chat',
  image: BERTH_BASE_IMAGE,
  memoryMb: '2048',
  cpus: '2',
  pids: '512',
  idleStopMinutes: '30',
  onQuit: 'stop',
  warmPool: '0',
  setupCommand: '',
  mountWorkspace: true,
  baseUrl: '',
  model: '',
  providerFrom: '',
  approval: 'ask',
  ...engineFields({ kind: 'default' }),
};

export function formFromProfile(profile: ProfileView): ProfileFormValues {
  const s = profile.settings;
  return {
    name: profile.name,
    backend: s.backend,
    egress: s.egress,
    egressAllow: s.egressAllow.join('\n'),
    containerScope: s.containerScope,
    image: s.image,
    memoryMb: String(s.limits.memoryMb),
    cpus: String(s.limits.cpus),
    pids: String(s.limits.pids),
    idleStopMinutes: String(s.retention.idleStopMinutes),
    onQuit: s.retention.onQuit,
    warmPool: String(s.warmPool),
    setupCommand: s.setupCommand ?? '',
    mountWorkspace: s.mountWorkspace,
    baseUrl: s.agent.baseUrl ?? '',
    model: s.agent.model ?? '',
    providerFrom: s.agent.providerFrom ?? '',
    approval: s.agent.approval,
    ...engineFields(s.engine),
  };
}

export type SettingsResult = { ok: true; settings: Partial<ProfileSettingsInput> } | { ok: false; message: string };

function number(value: string, label: string, integer: boolean): number | string {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n)) return `${label} must be a number.`;
  if (integer && !Number.isInteger(n)) return `${label} must be a whole number.`;
  return n;
}

/** The settings to send; main checks ranges and says what is wrong, so only the form's shape is checked here. */
export function settingsFromForm(values: ProfileFormValues): SettingsResult {
  const memoryMb = number(values.memoryMb, 'Memory', true);
  const cpus = number(values.cpus, 'CPUs', false);
  const pids = number(values.pids, 'Process limit', true);
  const idleStopMinutes = number(values.idleStopMinutes, 'Idle stop', false);
  const warmPool = number(values.warmPool, 'Warm sandboxes', true);
  for (const v of [memoryMb, cpus, pids, idleStopMinutes, warmPool]) if (typeof v === 'string') return { ok: false, message: v };
  // Said in words here: main's schema would answer with its own terse text.
  const engine = engineFromForm(values);
  if (!engine.ok) return { ok: false, message: "The engine settings are not complete: see the Engine fields." };
  if (values.image.trim() === '') {
    return { ok: false, message: `Choose an image for the sandbox: one of the engine's images, or Berth's own (${BERTH_BASE_IMAGE}), which Berth builds when the engine lacks it.` };
  }
  return {
    ok: true,
    settings: {
      egress: values.egress,
      egressAllow: allowFromText(values.egressAllow),
      containerScope: values.containerScope,
      image: values.image.trim(),
      mountWorkspace: values.mountWorkspace,
      limits: { memoryMb: memoryMb as number, cpus: cpus as number, pids: pids as number },
      retention: { idleStopMinutes: idleStopMinutes as number, onQuit: values.onQuit },
      warmPool: warmPool as number,
      setupCommand: values.setupCommand.trim() || null,
      agent: { baseUrl: values.baseUrl.trim() || null, model: values.model.trim() || null, approval: values.approval, ...(values.providerFrom ? { providerFrom: values.providerFrom } : {}) },
      engine: engine.setting,
    },
  };
}

/** Deep equality of settings values (plain data), whatever order their keys come in. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && sameValue(ra[k], rb[k]));
}

/** An edit names only what changed (main changes only what an edit names; nested objects whole). */
export function changedSettings(original: ProfileSettings, next: Partial<ProfileSettingsInput>): Partial<ProfileSettingsInput> {
  // A profile going back to its own provider says so (main keeps agent fields a save leaves out).
  if (original.agent.providerFrom && next.agent && !next.agent.providerFrom) next = { ...next, agent: { ...next.agent, providerFrom: null } };
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    if (!sameValue(value, (original as Record<string, unknown>)[key])) patch[key] = value;
  }
  return patch as Partial<ProfileSettingsInput>;
}

/** Whether the form differs from what it opened with (the Profiles dialog asks before dropping it). */
export function formChanged(initial: ProfileFormValues, now: ProfileFormValues): boolean {
  return !sameValue(initial, now);
}

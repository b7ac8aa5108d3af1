/** The profile form's values (as typed) and their conversion to the contract's settings. */
import { DEFAULT_EGRESS_ALLOW, type EgressMode, type ProfileSettings, type ProfileSettingsInput, type ProfileView } from '../../../shared/contract';
import { BERTH_BASE_IMAGE } from '../../../shared/contract';
import { allowFromText } from '../network/egressText';

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
  mountWorkspace: boolean;
  /** The agent's provider and model, as typed (empty: none), and its approval rule. */
  baseUrl: string;
  model: string;
  approval: 'ask' | 'auto';
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
  mountWorkspace: true,
  baseUrl: '',
  model: '',
  approval: 'ask',
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
    mountWorkspace: s.mountWorkspace,
    baseUrl: s.agent.baseUrl ?? '',
    model: s.agent.model ?? '',
    approval: s.agent.approval,
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
      agent: { baseUrl: values.baseUrl.trim() || null, model: values.model.trim() || null, approval: values.approval },
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

/** The profile form's values (as typed) and their conversion to the contract's settings. */
import type { ProfileSettings, ProfileSettingsInput, ProfileView } from '../../../shared/contract';

export interface ProfileFormValues {
  name: string;
  backend: 'docker' | 'local';
  network: 'isolated' | 'none';
  containerScope: 'chat' | 'shared';
  image: string;
  memoryMb: string;
  cpus: string;
  pids: string;
  idleStopMinutes: string;
  onQuit: 'stop' | 'keep';
  mountWorkspace: boolean;
}

/** The contract's defaults, for a new profile. */
export const NEW_PROFILE: ProfileFormValues = {
  name: '',
  backend: 'docker',
  network: 'isolated',
  containerScope: 'chat',
  image: 'debian:bookworm-slim',
  memoryMb: '2048',
  cpus: '2',
  pids: '512',
  idleStopMinutes: '30',
  onQuit: 'stop',
  mountWorkspace: true,
};

export function formFromProfile(profile: ProfileView): ProfileFormValues {
  const s = profile.settings;
  return {
    name: profile.name,
    backend: s.backend,
    network: s.network,
    containerScope: s.containerScope,
    image: s.image,
    memoryMb: String(s.limits.memoryMb),
    cpus: String(s.limits.cpus),
    pids: String(s.limits.pids),
    idleStopMinutes: String(s.retention.idleStopMinutes),
    onQuit: s.retention.onQuit,
    mountWorkspace: s.mountWorkspace,
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
  for (const v of [memoryMb, cpus, pids, idleStopMinutes]) if (typeof v === 'string') return { ok: false, message: v };
  return {
    ok: true,
    settings: {
      network: values.network,
      containerScope: values.containerScope,
      image: values.image.trim(),
      mountWorkspace: values.mountWorkspace,
      limits: { memoryMb: memoryMb as number, cpus: cpus as number, pids: pids as number },
      retention: { idleStopMinutes: idleStopMinutes as number, onQuit: values.onQuit },
    },
  };
}

/** An edit names only what changed (main changes only what an edit names; nested objects whole). */
export function changedSettings(original: ProfileSettings, next: Partial<ProfileSettingsInput>): Partial<ProfileSettingsInput> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    if (JSON.stringify(value) !== JSON.stringify((original as Record<string, unknown>)[key])) patch[key] = value;
  }
  return patch as Partial<ProfileSettingsInput>;
}

/**
 * What the profile form's "Check connection" (engine.check) may do and tell a page. Any page
 * that has the browser host's token can call it, with any address and any file paths, so its
 * answers must not make it a port scanner or a file oracle. Measured on today's engine clients
 * (ssh:// on 127.0.0.1): a closed port answered "nothing answered" with the port in the hint,
 * a plain HTTP or TLS port "Connection lost before handshake", each in milliseconds; the file
 * check said "does not exist", "is too large (N bytes)", "is not a file" or "is not a PEM
 * certificate" for any path named. So:
 * - an engine that does not answer gets one sentence, whatever the engine client said (that goes
 *   to main's log), unless the setting is the one saved with the profile, whose words
 *   engine.status gives anyway;
 * - the key files a setting names are read only when they are the ones saved with the profile
 *   the form edits (`profile`): the user typed them there and saved them, and saving checked
 *   them; anything else is not read at all, and the check says to save first;
 * - checks are counted: a person clicks "Check connection" a few times a minute, a scan needs
 *   thousands.
 */
import type { EngineSetting, EngineStatus } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';

/** At most this many checks in any CHECK_WINDOW_MS, from every screen together. */
export const ENGINE_CHECKS_PER_WINDOW = 6;
export const CHECK_WINDOW_MS = 60_000;

/**
 * The times of the checks still in the window, with `now` added when one more is allowed;
 * null when it is not (the list is then unchanged).
 */
export function countCheck(recent: readonly number[], now: number): number[] | null {
  const inWindow = recent.filter((t) => now - t < CHECK_WINDOW_MS);
  return inWindow.length >= ENGINE_CHECKS_PER_WINDOW ? null : [...inWindow, now];
}

export const tooManyChecks = (): BerthError =>
  new BerthError('invalid_request', `Berth checks at most ${ENGINE_CHECKS_PER_WINDOW} engine connections a minute, and that many were asked for.`, {
    hint: 'Wait a minute, then check the connection again.',
  });

/** The files on this computer a setting names: its SSH key, its TLS certificates and key. */
export function engineFiles(setting: EngineSetting): string[] {
  if (setting.kind === 'ssh') return setting.identityFile ? [setting.identityFile] : [];
  if (setting.kind === 'tcp') return [setting.tls.ca, setting.tls.cert, setting.tls.key];
  return [];
}

/**
 * Whether every file the setting names is the one the profile was saved with in that same
 * field (`saved`: null for a new profile): a saved certificate named as the key is not.
 */
export function filesAreSaved(setting: EngineSetting, saved: EngineSetting | null): boolean {
  const files = engineFiles(setting);
  if (files.length === 0) return true;
  if (!saved || saved.kind !== setting.kind) return false;
  const savedFiles = engineFiles(saved);
  return files.every((f, i) => savedFiles[i] === f);
}

/** Key order aside, the same setting. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * The setting is exactly the one saved with the profile: the check may then say all the
 * engine client said (an unknown SSH host key, what to run), as engine.status does for that
 * profile already. Any other address gets the one sentence.
 */
export function isSavedSetting(setting: EngineSetting, saved: EngineSetting | null): boolean {
  return saved !== null && canonical(setting) === canonical(saved);
}

/** Where a setting points, in the words the user wrote it (a context or the default engine: its resolved label). */
export function addressOf(setting: EngineSetting, resolvedLabel: string | null): string {
  if (setting.kind === 'ssh' || setting.kind === 'tcp') return setting.url.replace(/\/$/, '');
  if (setting.kind === 'podman') return setting.socketPath;
  return resolvedLabel ?? setting.kind;
}

/** The answer for key files that were not saved with the profile: nothing read, nothing said of them. */
export function saveFirst(endpoint: string): EngineStatus {
  return {
    state: 'unreachable',
    version: null,
    endpoint,
    message: 'Berth reads the key files an engine setting names only once they are saved with the profile.',
    hint: 'Save the profile, then check the connection.',
    engine: null,
  };
}

/** What a page reads about an engine that did not answer, whatever the reason. */
export function couldNotConnect(endpoint: string, status?: Pick<EngineStatus, 'engine'>): EngineStatus {
  return {
    state: 'unreachable',
    version: null,
    endpoint,
    message: `Berth could not connect to the engine at ${endpoint}.`,
    hint: 'Check the address, that the engine runs there, and the key files saved with the profile; Berth’s log says what the engine client reported.',
    engine: status?.engine ?? null,
  };
}

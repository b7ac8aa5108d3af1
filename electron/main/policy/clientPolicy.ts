/**
 * What the app's window (IPC) or a browser (the host) may ask for, beyond what the contract's
 * schemas allow. Pure. The window is untrusted: a setting that reaches past the sandbox, such
 * as running commands on this computer or naming host folders for every chat, is Berth's own
 * configuration, never something a page can set.
 */
const HOST_LEVEL_SETTINGS = ['backend', 'staticMounts', 'homeTemplate', 'sandboxUser'] as const;

export function clientRequestProblem(method: string, params: unknown): string | null {
  if (method !== 'profiles.create' && method !== 'profiles.update') return null;
  const p = (params ?? {}) as Record<string, unknown>;
  const settings = (method === 'profiles.update' ? (p.settings ?? {}) : p) as Record<string, unknown>;
  const named: string[] = HOST_LEVEL_SETTINGS.filter((key) => settings[key] !== undefined && !(key === 'backend' && settings[key] === 'docker'));
  // The engine (default, a context, ssh://, tcp:// with TLS, a Podman socket) is the profile
  // form's to set: main checks that the files it names are the certificate, key or socket each
  // field says (engine/engineSettingCheck) before it reads them, and a remote engine only ever
  // gets copies of attached folders. Where a profile's chats run is like where its agent's
  // provider is: the user's choice in the form, never a way onto this computer.
  if (named.length === 0) return null;
  return `The app cannot change ${named.join(', ')}: these settings reach past the sandbox (commands on this computer, host folders for every chat, who the sandbox runs as), so only Berth's own configuration on this computer sets them.`;
}

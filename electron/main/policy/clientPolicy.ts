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
  // A page may pick the default engine or a context the user set up; an endpoint with its own
  // key files or socket path names host files and hosts, which is Berth's own configuration.
  const engine = settings.engine as { kind?: unknown } | undefined;
  if (engine !== undefined && engine?.kind !== 'default' && engine?.kind !== 'context') named.push('engine (other than the default or a Docker context)');
  if (named.length === 0) return null;
  return `The app cannot change ${named.join(', ')}: these settings reach past the sandbox (commands on this computer, host folders for every chat, who the sandbox runs as), so only Berth's own configuration on this computer sets them.`;
}

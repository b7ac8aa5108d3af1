/**
 * Where a command starts. Pure. A recorded host path is never sent into a container: every
 * command there would fail to cd. A host path inside an attached folder maps to its
 * container equivalent.
 */
import path from 'node:path';
import { isSameOrInside } from './sensitivePaths.js';

export interface CwdRecord {
  path: string;
  /** Where the recording command ran: inside the container, or on the host. */
  location: 'container' | 'host';
}

export interface MountPoint {
  source: string;
  target: string;
}

export interface CwdInput {
  backend: 'docker' | 'local';
  workdir?: string | null;
  recorded: CwdRecord | null;
  mounts: readonly MountPoint[];
  /** The sandbox home (docker) or the user's home (local). */
  home: string;
  /** Local backend: the chat's first attached folder, where commands start by default. */
  localDefault?: string | null;
}

export interface ResolvedCwd {
  cwd: string;
  /** Where to go instead when cwd no longer exists. */
  fallback: string;
}

export function hostPathToContainer(hostPath: string, mounts: readonly MountPoint[]): string | null {
  let best: MountPoint | null = null;
  for (const m of mounts) {
    if (isSameOrInside(hostPath, m.source) && (!best || m.source.length > best.source.length)) best = m;
  }
  if (!best) return null;
  const rest = path.relative(best.source, hostPath);
  return rest ? path.posix.join(best.target, ...rest.split(path.sep)) : best.target;
}

export function defaultContainerCwd(mounts: readonly MountPoint[], home: string): string {
  const first = mounts[0];
  if (!first) return home;
  // Several folders sit side by side under /workspace; one folder is /workspace itself.
  return first.target === '/workspace' || !first.target.startsWith('/workspace/') ? first.target : '/workspace';
}

export function resolveCommandCwd(input: CwdInput): ResolvedCwd {
  if (input.backend === 'local') {
    const fallback = input.localDefault ?? input.home;
    const recorded = input.recorded?.location === 'host' ? input.recorded.path : null;
    const base = recorded ?? fallback;
    if (input.workdir) return { cwd: path.resolve(base, input.workdir), fallback };
    return { cwd: base, fallback };
  }

  const fallback = defaultContainerCwd(input.mounts, input.home);
  let base = fallback;
  if (input.recorded?.location === 'container' && input.recorded.path.startsWith('/')) {
    base = input.recorded.path;
  } else if (input.recorded?.location === 'host') {
    base = hostPathToContainer(input.recorded.path, input.mounts) ?? fallback;
  }
  if (!input.workdir) return { cwd: base, fallback };
  const mapped = hostPathToContainer(input.workdir, input.mounts);
  if (mapped) return { cwd: mapped, fallback };
  return { cwd: path.posix.resolve(base, input.workdir), fallback };
}

/**
 * Whether a container working directory recorded before the chat's folders changed is forgotten,
 * so the next command starts where commands start now. Only a default is: the home (where a
 * chat without a folder runs) or /workspace (the folder, or the folders side by side) when it is
 * no longer the default. An agent that ran `pwd` before its folder arrived is still in the home,
 * although its system prompt names the folder; a directory it went to itself (cd) is kept.
 */
export function forgetsRecordedCwd(recorded: CwdRecord, defaultNow: string, home: string): boolean {
  if (recorded.location !== 'container' || recorded.path === defaultNow) return false;
  return recorded.path === home || recorded.path === '/workspace';
}

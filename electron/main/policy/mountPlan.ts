/**
 * What is mounted into a chat's container. Pure. The only chat mount sources are folders the
 * user attached to this chat (provenance 'session'); anything derived from process-global
 * state (provenance 'process') is never mounted.
 */
import path from 'node:path';
import { CONTAINER_WORKSPACE } from './sensitivePaths.js';

export type Provenance = 'session' | 'process';

export interface AttachmentInput {
  hostPath: string;
  readOnly: boolean;
  provenance: Provenance;
}

export interface StaticMountInput {
  source: string;
  target: string;
  readOnly: boolean;
}

export interface PlannedMount {
  source: string;
  target: string;
  readOnly: boolean;
  origin: 'chat' | 'profile';
}

export interface MountPlanInput {
  backend: 'docker' | 'local';
  mountWorkspace: boolean;
  /** In the order the user attached them. */
  attachments: readonly AttachmentInput[];
  staticMounts: readonly StaticMountInput[];
}

function folderLabel(hostPath: string): string {
  const base = path.basename(hostPath).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
  return base || 'folder';
}

/**
 * Container paths for the chat's attached folders: one folder is /workspace itself; several
 * are /workspace/<name> each, so no mount ever lands inside another (Docker would create the
 * mount point inside the user's folder).
 */
export function workspaceTargets(hostPaths: readonly string[]): string[] {
  if (hostPaths.length === 1) return [CONTAINER_WORKSPACE];
  const used = new Set<string>();
  return hostPaths.map((hostPath) => {
    const base = folderLabel(hostPath);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    return path.posix.join(CONTAINER_WORKSPACE, name);
  });
}

const RESERVED_TARGETS = ['/', '/proc', '/sys', '/dev', '/etc', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/tmp', '/home/berth', '/run', '/var/run'];

/** Why a profile mount may not land at this container path, or null when it may. */
export function staticTargetProblem(target: string): string | null {
  const t = path.posix.normalize(target).replace(/(.)\/+$/, '$1');
  if (!t.startsWith('/')) return `the container path "${target}" must start with /.`;
  for (const reserved of RESERVED_TARGETS) {
    if (t === reserved || (reserved !== '/' && t.startsWith(`${reserved}/`))) {
      return `the container path "${target}" is reserved for the sandbox itself.`;
    }
  }
  return null;
}

export function planMounts(input: MountPlanInput): PlannedMount[] {
  if (input.backend !== 'docker' || !input.mountWorkspace) return [];
  const chatFolders = input.attachments.filter((a) => a.provenance === 'session');
  const targets = workspaceTargets(chatFolders.map((a) => a.hostPath));
  const chatMounts: PlannedMount[] = chatFolders.map((a, i) => ({
    source: a.hostPath,
    target: targets[i] as string,
    readOnly: a.readOnly,
    origin: 'chat',
  }));
  const taken = new Set(chatMounts.map((m) => m.target));
  const profileMounts: PlannedMount[] = [];
  for (const m of input.staticMounts) {
    const target = path.posix.normalize(m.target).replace(/(.)\/+$/, '$1');
    // One source per target: the chat's own folder replaces a profile mount at the same path.
    if (taken.has(target)) continue;
    taken.add(target);
    profileMounts.push({ source: m.source, target, readOnly: m.readOnly, origin: 'profile' });
  }
  return [...chatMounts, ...profileMounts];
}

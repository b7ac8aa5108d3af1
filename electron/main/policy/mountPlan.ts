/**
 * What is mounted into a chat's container. Pure. The only chat mount sources are folders the
 * user attached to this chat (provenance 'session'); anything derived from process-global
 * state (provenance 'process') is never mounted.
 */
import path from 'node:path';
import { CONTAINER_WORKSPACE, isSameOrInside } from './sensitivePaths.js';

export type Provenance = 'session' | 'process';

export interface AttachmentInput {
  hostPath: string;
  readOnly: boolean;
  provenance: Provenance;
  /**
   * Review mode: the chat's own copy is mounted (writable) at the folder's usual path instead of
   * the folder, and a git copy's borrowed objects (the user's .git/objects) read-only beside it.
   */
  review?: { workDir: string; objects: { source: string; target: string } | null } | null;
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
  /**
   * 'review': a chat's copy in Berth's data dir, checked as such (not as a user's folder).
   * 'slot': a warm sandbox's empty slot folder (review/slotFolders.ts), Berth's own, at /workspace.
   */
  origin: 'chat' | 'profile' | 'review' | 'slot';
}

export interface MountPlanInput {
  backend: 'docker' | 'local';
  mountWorkspace: boolean;
  /** In the order the user attached them. */
  attachments: readonly AttachmentInput[];
  staticMounts: readonly StaticMountInput[];
  /**
   * The chat's slot folder, when it took a warm sandbox: mounted empty at /workspace while the
   * chat has no folder, so that its first folder copy, made into it, needs no new mount.
   */
  slot?: string | null;
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

const RESERVED_TARGETS = ['/proc', '/sys', '/dev', '/etc', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/tmp', '/home/berth', '/run', '/var/run'];

/** A container path in one spelling: normalised, without a trailing slash. */
function normaliseTarget(target: string): string {
  return path.posix.normalize(target).replace(/(.)\/+$/, '$1');
}

/** Whether a is b, or one of them lies inside the other (absolute paths). */
function nests(a: string, b: string): boolean {
  return isSameOrInside(a, b) || isSameOrInside(b, a);
}

/**
 * Why a profile mount may not land at this container path, or null when it may: paths the
 * sandbox itself uses, anything inside them, and anything that holds one (/home holds the
 * sandbox's home) are refused.
 */
export function staticTargetProblem(target: string): string | null {
  const t = normaliseTarget(target);
  if (!t.startsWith('/')) return `the container path "${target}" must start with /.`;
  if (t === '/') return `the container path "${target}" is reserved for the sandbox itself.`;
  for (const reserved of RESERVED_TARGETS) {
    if (nests(t, reserved)) {
      return isSameOrInside(t, reserved)
        ? `the container path "${target}" is reserved for the sandbox itself.`
        : `the container path "${target}" holds ${reserved}, which the sandbox itself uses.`;
    }
  }
  return null;
}

/**
 * Why a profile's mounts cannot be used together, or null when they can: no two may repeat or
 * nest (one would land inside the other), and none may land inside /workspace other than at
 * /workspace itself, where a chat's own folders go.
 */
export function staticMountsProblem(mounts: readonly { target: string }[]): string | null {
  const targets = mounts.map((m) => normaliseTarget(m.target));
  for (const [i, t] of targets.entries()) {
    if (t.startsWith(`${CONTAINER_WORKSPACE}/`)) {
      return `The profile mount at "${t}" would land inside a chat's folder at ${CONTAINER_WORKSPACE}; use ${CONTAINER_WORKSPACE} itself or a path outside it, such as /data.`;
    }
    for (const other of targets.slice(0, i)) {
      if (t === other) return `Two profile mounts use the same container path "${t}"; give each its own.`;
      if (nests(t, other)) return `The profile mounts at "${other}" and "${t}" lie one inside the other; give each a separate path, such as /data and /reference.`;
    }
  }
  return null;
}

/**
 * Whether the chat's container is its warm sandbox's, mounts and all: it has a slot, and either
 * no folder (the slot is mounted empty) or only Review-mode copies in the slot (it is mounted at
 * /workspace like any one folder: the same mount): one copy fills it, several each have the
 * folder named as its container path in it, so every folder is where a container made with
 * them would have it. No profile mount may claim /workspace.
 */
export function usesSlot(input: MountPlanInput): boolean {
  const slot = input.slot;
  if (!slot || input.backend !== 'docker' || !input.mountWorkspace) return false;
  if (input.staticMounts.some((m) => nests(normaliseTarget(m.target), CONTAINER_WORKSPACE))) return false;
  const folders = input.attachments.filter((a) => a.provenance === 'session');
  if (folders.length === 0) return true;
  if (!folders.every((a) => a.review && !a.review.objects)) return false;
  if (folders.length === 1) return folders[0]?.review?.workDir === slot;
  const targets = workspaceTargets(folders.map((a) => a.hostPath));
  return folders.every((a, i) => a.review?.workDir === path.join(slot, path.posix.basename(targets[i] as string)));
}

export function planMounts(input: MountPlanInput): PlannedMount[] {
  if (input.backend !== 'docker' || !input.mountWorkspace) return [];
  const chatFolders = input.attachments.filter((a) => a.provenance === 'session');
  if (usesSlot(input) && chatFolders.length !== 1) {
    // Empty, or holding several copies: the slot itself at /workspace (one copy is planned below
    // as any one folder, which is the same mount).
    const slot: PlannedMount = { source: input.slot as string, target: CONTAINER_WORKSPACE, readOnly: false, origin: chatFolders.length === 0 ? 'slot' : 'review' };
    return [slot, ...profileMountsFor(input.staticMounts, [CONTAINER_WORKSPACE])];
  }
  const targets = workspaceTargets(chatFolders.map((a) => a.hostPath));
  const chatMounts: PlannedMount[] = chatFolders.map((a, i) =>
    a.review
      ? { source: a.review.workDir, target: targets[i] as string, readOnly: false, origin: 'review' }
      : { source: a.hostPath, target: targets[i] as string, readOnly: a.readOnly, origin: 'chat' },
  );
  // A git copy's borrowed objects: the user's object store, never writable.
  for (const a of chatFolders) {
    if (a.review?.objects) chatMounts.push({ source: a.review.objects.source, target: a.review.objects.target, readOnly: true, origin: 'chat' });
  }
  return [...chatMounts, ...profileMountsFor(input.staticMounts, chatMounts.map((m) => m.target))];
}

/** The profile's mounts that fit beside the chat's (at `taken`). */
function profileMountsFor(staticMounts: readonly StaticMountInput[], chatTargets: readonly string[]): PlannedMount[] {
  const taken = [...chatTargets];
  const profileMounts: PlannedMount[] = [];
  for (const m of staticMounts) {
    const target = normaliseTarget(m.target);
    // Never at a path the sandbox uses, and never at, inside or around another mount: the
    // chat's own folders win over a profile mount, and the first profile mount over later ones.
    if (staticTargetProblem(target) !== null || taken.some((t) => nests(t, target))) continue;
    taken.push(target);
    profileMounts.push({ source: m.source, target, readOnly: m.readOnly, origin: 'profile' });
  }
  return profileMounts;
}

/** The folders as the chat sees them, for paths and working directories: an empty slot is not one. */
export function visibleFolders(mounts: readonly PlannedMount[]): PlannedMount[] {
  return mounts.filter((m) => m.origin !== 'slot');
}

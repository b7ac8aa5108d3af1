/**
 * Slot folders: the one host folder a warm (pooled) sandbox mounts besides its home, at
 * /workspace, so that the first Review-mode copy made later for the chat that took it appears
 * in the running container, at /workspace as a chat's one folder always is, without recreating
 * the container (Docker cannot add a mount to a container).
 *
 * Layout: <data dir>/profiles/<profile>/slots/<chat>/. Empty, it is Berth's (mode 0555, owner
 * Berth's user: the sandbox can list it and write nothing). The chat's first folder copy fills
 * it: the copy's entries are moved in (the mounted folder must stay the same inode), and the
 * slot is handed to the sandbox user as a copy's work tree is; its tracking repository and meta
 * stay in <data dir>/review/<id>/, never mounted. Emptied again when that copy goes.
 * Several copies (all the chat's folders Review-mode copies): the slot is Berth's again and holds
 * one folder per copy, named as its container path under /workspace (policy/mountPlan
 * workspaceTargets), so each copy is where it would be in a container made with them
 * (arrangeSlot); one left goes back to filling the slot.
 *
 * Why it is safe to mount:
 * - Berth makes it, in its own data folder, for one reserved chat id: never a user's path, and
 *   rechecked (a real folder in a profile's slots, reached without links) before every start.
 * - It holds this chat's one copy or nothing; the container can write in it exactly as in any
 *   copy, and nothing there ever runs on the host (copies are read only through Berth's own
 *   repository, review/reviewCopy.ts).
 * - It follows its chat: removed with the chat, with the reservation when a warm sandbox is
 *   dropped, and swept at start-up when neither a chat nor a reservation has its name.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { folderNameFor } from '../policy/names.js';
import type { FolderIdentity } from '../policy/mountProof.js';

/** The slot folders of one profile. */
export function slotsRootFor(dataDir: string, profile: string): string {
  return path.join(dataDir, 'profiles', folderNameFor(profile), 'slots');
}

export function slotDirFor(dataDir: string, profile: string, chatId: string): string {
  return path.join(slotsRootFor(dataDir, profile), folderNameFor(chatId));
}

/** Whether the chat was given a slot folder (it took a warm sandbox): a real folder, no link. */
export function hasSlot(dir: string): boolean {
  try {
    return fs.lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Makes the (empty) slot folder for a reserved chat id: Berth's, readable by the sandbox, writable by nobody. */
export function makeSlot(dir: string): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  fs.mkdirSync(dir, { mode: 0o555 });
  fs.chmodSync(dir, 0o555);
}

/** An empty slot no copy holds: Berth's, nothing in it. */
function isFree(slot: string): boolean {
  try {
    const st = fs.lstatSync(slot);
    return st.isDirectory() && (st.mode & 0o777) === 0o555 && fs.readdirSync(slot).length === 0;
  } catch {
    return false;
  }
}

/**
 * Fills a free slot with a finished copy's work tree (made in Berth's private review folder,
 * owned for the sandbox already): its entries are moved in one by one, then the slot is handed
 * over as the work tree. Synchronous from the check to the hand-over, so two copies can never
 * both take it. False when the slot is not free (the copy then stays where it was made).
 */
export function fillSlot(slot: string, workTree: string): boolean {
  if (fs.realpathSync.native(slot) !== slot || !isFree(slot)) return false;
  const st = fs.statSync(workTree);
  fs.chmodSync(slot, 0o700);
  for (const entry of fs.readdirSync(workTree)) fs.renameSync(path.join(workTree, entry), path.join(slot, entry));
  fs.chownSync(slot, st.uid, st.gid);
  fs.chmodSync(slot, st.mode & 0o777);
  fs.rmdirSync(workTree);
  return true;
}

/**
 * Empties a slot whose copy goes: the top level is Berth's again first (the sandbox, if it
 * runs, can add nothing more), then what was in it is moved out of the mount and removed.
 */
export function emptySlot(slot: string): void {
  if (!hasSlot(slot)) return;
  fs.chownSync(slot, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
  fs.chmodSync(slot, 0o700);
  const trash = fs.mkdtempSync(path.join(path.dirname(slot), '.emptying-'));
  try {
    for (const entry of fs.readdirSync(slot)) fs.renameSync(path.join(slot, entry), path.join(trash, entry));
  } finally {
    fs.chmodSync(slot, 0o555);
    fs.rmSync(trash, { recursive: true, force: true });
  }
}

/**
 * Lays a slot out for its copies (their work trees, in the chat's order; one made outside the
 * slot is moved in): one copy fills the slot, several each get the folder `names[i]` in it (a
 * slot Berth's again, mode 0555). Every copy already in the slot is first moved to a name of
 * Berth's own, so none lands on another whatever the names were. The top level is Berth's
 * while this runs: a running sandbox can add nothing there meanwhile. Returns the new work trees.
 */
export function arrangeSlot(slot: string, workDirs: readonly string[], names: readonly string[]): string[] {
  if (workDirs.length === 0 || (workDirs.length > 1 && names.length !== workDirs.length)) throw new Error('arrangeSlot: a name per copy');
  if (fs.realpathSync.native(slot) !== slot || !hasSlot(slot)) throw slotChanged(slot);
  const filled = fs.statSync(slot);
  fs.chownSync(slot, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
  fs.chmodSync(slot, 0o700);
  const staging = () => path.join(slot, `.berth-${randomBytes(6).toString('hex')}`);
  const staged = workDirs.map((dir) => {
    if (dir === slot) {
      const tmp = staging();
      fs.mkdirSync(tmp, { mode: 0o700 });
      for (const entry of fs.readdirSync(slot)) if (path.join(slot, entry) !== tmp) fs.renameSync(path.join(slot, entry), path.join(tmp, entry));
      fs.chownSync(tmp, filled.uid, filled.gid);
      fs.chmodSync(tmp, filled.mode & 0o777);
      return tmp;
    }
    if (path.dirname(dir) !== slot) return dir;
    const tmp = staging();
    fs.renameSync(dir, tmp);
    return tmp;
  });
  if (staged.length === 1) {
    const only = staged[0] as string;
    const st = fs.statSync(only);
    for (const entry of fs.readdirSync(only)) fs.renameSync(path.join(only, entry), path.join(slot, entry));
    fs.rmdirSync(only);
    fs.chownSync(slot, st.uid, st.gid);
    fs.chmodSync(slot, st.mode & 0o777);
    return [slot];
  }
  const placed = staged.map((dir, i) => {
    const to = path.join(slot, names[i] as string);
    fs.renameSync(dir, to);
    return to;
  });
  fs.chmodSync(slot, 0o555);
  return placed;
}

/** Whether `dir` is one copy's folder in a slot that holds several (arrangeSlot). */
export function isInSlot(dir: string, slot: string): boolean {
  return path.dirname(dir) === slot;
}

/** Removes one copy's folder from a slot that holds several: moved out of the mount first, then removed. */
export function removeFromSlot(dir: string): void {
  const slot = path.dirname(dir);
  const trash = fs.mkdtempSync(path.join(path.dirname(slot), '.emptying-'));
  try {
    fs.renameSync(dir, path.join(trash, 'copy'));
  } finally {
    fs.rmSync(trash, { recursive: true, force: true });
  }
}

export function removeSlot(dir: string): void {
  if (!hasSlot(dir)) return;
  fs.chmodSync(dir, 0o700);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Removes every slot folder of these profiles whose chat is neither a chat nor a reservation now. */
export function sweepSlots(dataDir: string, profiles: readonly string[], alive: (profile: string) => ReadonlySet<string>): number {
  let removed = 0;
  for (const profile of profiles) {
    const root = slotsRootFor(dataDir, profile);
    let names: string[];
    try {
      names = fs.readdirSync(root);
    } catch {
      continue;
    }
    const keep = new Set([...alive(profile)].map((id) => folderNameFor(id)));
    for (const name of names) {
      if (keep.has(name)) continue;
      const dir = path.join(root, name);
      if (isLink(dir)) fs.rmSync(dir, { force: true });
      else removeSlot(dir);
      removed++;
    }
  }
  return removed;
}

/** Whether `dir` is a slot folder as Berth made it: a real folder, reached without links, in a profile's slots. */
export function isSlotFolder(dir: string, dataDir: string): boolean {
  let real: string;
  try {
    real = fs.realpathSync.native(dir);
  } catch {
    return false;
  }
  const profiles = path.join(fs.realpathSync.native(path.resolve(dataDir)), 'profiles');
  return real === dir && path.basename(path.dirname(real)) === 'slots' && path.dirname(path.dirname(path.dirname(real))) === profiles && hasSlot(real);
}

/** The check, right before a container with a slot is created or started, that the slot is what Berth made. */
export function recheckSlotFolder(source: string, dataDir: string): FolderIdentity {
  if (!isSlotFolder(source, dataDir)) throw slotChanged(source);
  const st = fs.statSync(source, { bigint: true });
  return { dev: String(st.dev), ino: String(st.ino) };
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function slotChanged(dir: string): BerthError {
  return new BerthError('workspace_changed', `The chat's slot folder at "${dir}" is missing or was replaced, so Berth will not mount it.`, {
    hint: 'Detach the chat’s Review-mode folders and attach them again.',
  });
}

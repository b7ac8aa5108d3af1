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
import { at, closeQuietly, listAt, mkdirAt, openDirAt, openRoot, removeTreeAt, renameAt } from './linkSafe.js';

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

/** Berth's own user, which the slot's top level belongs to while Berth lays it out. */
const me = () => ({ uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 });

/**
 * Runs `fn` with the slot (and its parent, Berth's slots folder) opened. Every move below is
 * made relative to these descriptors (linkSafe renameAt): the chat can write inside its copy
 * while it runs, and a process standing in a folder of it keeps that folder when Berth moves it
 * out of the mount, so nothing there is ever reached again by a path the chat could redirect.
 */
function withSlot<T>(slot: string, fn: (slotFd: number, parentFd: number) => T): T {
  const parentFd = openRoot(path.dirname(slot));
  try {
    const slotFd = openDirAt(parentFd, path.basename(slot));
    if (slotFd === null) throw slotChanged(slot);
    try {
      return fn(slotFd, parentFd);
    } finally {
      closeQuietly(slotFd);
    }
  } finally {
    closeQuietly(parentFd);
  }
}

/** The slot's top level is Berth's (0700): a running sandbox can add, move or remove nothing there until it is handed back. */
function takeTop(slotFd: number): void {
  fs.fchownSync(slotFd, me().uid, me().gid);
  fs.fchmodSync(slotFd, 0o700);
}

/**
 * Moves what is at `name` in the slots folder (a copy taken out of the mount) away for good: removed
 * without following any link (linkSafe removeAt), as a process of the chat may still stand in it
 * and swap a folder there for a link to a host folder. One that keeps adding to it leaves it for
 * the start-up sweep (sweepSlots: the name is no chat's).
 */
function discard(parentFd: number, name: string): void {
  removeTreeAt(parentFd, name);
}

/** Moves `name` in `fromFd` out of the mount to a fresh name in the slots folder, then discards it there. */
function throwOut(fromFd: number, name: string, parentFd: number): void {
  const trash = hidden('.emptying-');
  fs.mkdirSync(at(parentFd, trash), 0o700);
  try {
    renameAt(fromFd, name, parentFd, trash);
  } finally {
    discard(parentFd, trash);
  }
}

const hidden = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;

/** An empty slot no copy holds: Berth's, nothing in it. */
function isFree(slotFd: number): boolean {
  const st = fs.fstatSync(slotFd);
  return st.isDirectory() && (st.mode & 0o777) === 0o555 && listAt(slotFd).length === 0;
}

/**
 * Fills a free slot with a finished copy's work tree (made in Berth's private review folder,
 * owned for the sandbox already): its entries are moved in one by one, then the slot is handed
 * over as the work tree. Synchronous from the check to the hand-over, so two copies can never
 * both take it. False when the slot is not free (the copy then stays where it was made).
 */
export function fillSlot(slot: string, workTree: string): boolean {
  if (!hasSlot(slot) || fs.realpathSync.native(slot) !== slot) return false;
  return withSlot(slot, (slotFd) => {
    if (!isFree(slotFd)) return false;
    const workFd = openRoot(workTree);
    try {
      const st = fs.fstatSync(workFd);
      fs.fchmodSync(slotFd, 0o700);
      for (const entry of listAt(workFd)) renameAt(workFd, entry, slotFd, entry);
      fs.fchownSync(slotFd, st.uid, st.gid);
      fs.fchmodSync(slotFd, st.mode & 0o777);
    } finally {
      closeQuietly(workFd);
    }
    fs.rmdirSync(workTree);
    return true;
  });
}

/**
 * Empties a slot whose copy goes: the top level is Berth's again first (the sandbox, if it
 * runs, can add nothing more), then what was in it is moved out of the mount and removed.
 */
export function emptySlot(slot: string): void {
  if (!hasSlot(slot)) return;
  withSlot(slot, (slotFd, parentFd) => {
    takeTop(slotFd);
    const trash = hidden('.emptying-');
    const trashFd = mkdirAt(parentFd, trash, 0o700);
    try {
      for (const entry of listAt(slotFd)) renameAt(slotFd, entry, trashFd, entry);
    } finally {
      fs.fchmodSync(slotFd, 0o555);
      closeQuietly(trashFd);
      discard(parentFd, trash);
    }
  });
}

/** A copy's work tree while arrangeSlot lays the slot out: a folder in the slot by name, or one outside it (Berth's own) by path. */
type Staged = { name: string } | { outside: string };

/** Moves every entry of `fromFd` into `toFd`, until none is left (a process standing in it may add more meanwhile). */
function moveAll(fromFd: number, toFd: number, skip: string | null): void {
  for (let round = 0; round < 5; round++) {
    const entries = listAt(fromFd).filter((e) => e !== skip);
    if (entries.length === 0) return;
    for (const entry of entries) {
      try {
        renameAt(fromFd, entry, toFd, entry);
      } catch (error) {
        // Gone meanwhile: the chat removed it itself.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
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
  if (!hasSlot(slot) || fs.realpathSync.native(slot) !== slot) throw slotChanged(slot);
  return withSlot(slot, (slotFd, parentFd) => {
    const filled = fs.fstatSync(slotFd);
    takeTop(slotFd);
    const staged = workDirs.map((dir): Staged => {
      if (dir === slot) {
        const tmp = hidden('.berth-');
        const tmpFd = mkdirAt(slotFd, tmp, 0o700);
        try {
          moveAll(slotFd, tmpFd, tmp);
          fs.fchownSync(tmpFd, filled.uid, filled.gid);
          fs.fchmodSync(tmpFd, filled.mode & 0o777);
        } finally {
          closeQuietly(tmpFd);
        }
        return { name: tmp };
      }
      if (path.dirname(dir) !== slot) return { outside: dir };
      const tmp = hidden('.berth-');
      renameAt(slotFd, path.basename(dir), slotFd, tmp);
      return { name: tmp };
    });
    if (staged.length === 1) {
      const only = staged[0] as Staged;
      const onlyFd = 'name' in only ? openDirAt(slotFd, only.name) : openRoot(only.outside);
      if (onlyFd === null) throw slotChanged(slot);
      try {
        const st = fs.fstatSync(onlyFd);
        moveAll(onlyFd, slotFd, null);
        fs.fchownSync(slotFd, st.uid, st.gid);
        fs.fchmodSync(slotFd, st.mode & 0o777);
      } finally {
        closeQuietly(onlyFd);
      }
      // Empty now, unless a process standing in it kept adding: then it goes as a copy that leaves does.
      if ('outside' in only) fs.rmdirSync(only.outside);
      else if (!rmdirQuietly(slotFd, only.name)) throwOut(slotFd, only.name, parentFd);
      return [slot];
    }
    const placed = staged.map((s, i) => {
      const name = names[i] as string;
      if ('name' in s) renameAt(slotFd, s.name, slotFd, name);
      else moveIn(s.outside, slotFd, name);
      return path.join(slot, name);
    });
    fs.fchmodSync(slotFd, 0o555);
    return placed;
  });
}

/** Moves a folder of Berth's own (a copy made outside the slot) into the slot as `name`. */
function moveIn(dir: string, slotFd: number, name: string): void {
  const fromFd = openRoot(path.dirname(dir));
  try {
    renameAt(fromFd, path.basename(dir), slotFd, name);
  } finally {
    closeQuietly(fromFd);
  }
}

function rmdirQuietly(dirFd: number, name: string): boolean {
  try {
    fs.rmdirSync(at(dirFd, name));
    return true;
  } catch {
    return false;
  }
}

/** Whether `dir` is one copy's folder in a slot that holds several (arrangeSlot). */
export function isInSlot(dir: string, slot: string): boolean {
  return path.dirname(dir) === slot;
}

/** Removes one copy's folder from a slot that holds several: moved out of the mount first, then removed. */
export function removeFromSlot(dir: string): void {
  withSlot(path.dirname(dir), (slotFd, parentFd) => throwOut(slotFd, path.basename(dir), parentFd));
}

/** Removes a slot folder: its top level Berth's first (nothing more added there), then all in it, never through a link. */
export function removeSlot(dir: string): void {
  if (!hasSlot(dir)) return;
  const parentFd = openRoot(path.dirname(dir));
  try {
    dropAt(parentFd, path.basename(dir));
  } finally {
    closeQuietly(parentFd);
  }
}

/** Removes `name` in the slots folder: a link itself, a folder (taken first, then removed link-safe). */
function dropAt(parentFd: number, name: string): void {
  const fd = openDirAt(parentFd, name);
  if (fd !== null) {
    try {
      takeTop(fd);
    } finally {
      closeQuietly(fd);
    }
  }
  discard(parentFd, name);
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
    const rootFd = openRoot(root);
    try {
      for (const name of names) {
        if (keep.has(name)) continue;
        dropAt(rootFd, name);
        removed++;
      }
    } finally {
      closeQuietly(rootFd);
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

function slotChanged(dir: string): BerthError {
  return new BerthError('workspace_changed', `The chat's slot folder at "${dir}" is missing or was replaced, so Berth will not mount it.`, {
    hint: 'Detach the chat’s Review-mode folders and attach them again.',
  });
}

/**
 * Slot folders: the one host folder a warm (pooled) sandbox mounts besides its home, at
 * /workspace, so that a Review-mode copy made later for the chat that took it appears in the
 * running container without recreating it (Docker cannot add a mount to a container).
 *
 * Layout: <data dir>/profiles/<profile>/slots/<chat>/<label>/ where each <label> is one copy's
 * work tree (its tracking repository and meta stay in <data dir>/review/<id>/, never mounted).
 *
 * Why it is safe to mount:
 * - Berth makes it, in its own data folder, for one reserved chat id: never a user's path.
 * - Its top level belongs to Berth (mode 0555, owner Berth's user): the sandbox user can write
 *   inside each copy, but cannot add, rename or replace the copies themselves, so a copy's path
 *   on the host stays the folder Berth made (no symlink can be swapped in for it). Berth checks
 *   that again before it mounts a slot or reads a copy (recheckSlotFolder, reviewMounts).
 * - Nothing in it ever runs on the host: copies are read only through Berth's own repository
 *   (review/reviewCopy.ts), as for any copy.
 * - It follows its chat: removed with the chat, with the reservation when the slot is dropped,
 *   and swept at start-up when neither a chat nor a reservation has its name (sweepSlots).
 */
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

/**
 * Moves a finished copy's work tree (made in Berth's private review folder, owned for the
 * sandbox already) into the slot under `label`, or `label-2`… when that is taken. A rename is
 * atomic and never follows a link at its target, and only Berth writes the slot's top level.
 */
export function placeInSlot(slot: string, label: string, workTree: string): string {
  const real = fs.realpathSync.native(slot);
  if (real !== slot || !hasSlot(slot)) throw slotChanged(slot);
  fs.chmodSync(slot, 0o755);
  try {
    for (let n = 1; n < 1000; n++) {
      const target = path.join(slot, n === 1 ? label : `${label}-${n}`);
      if (fs.existsSync(target) || isLink(target)) continue;
      try {
        fs.renameSync(workTree, target);
        return target;
      } catch (error) {
        if (!['EEXIST', 'ENOTEMPTY', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      }
    }
    throw new BerthError('review_failed', `The chat's slot folder at "${slot}" has no free name for the copy.`, { hint: 'Detach folders you no longer need.' });
  } finally {
    fs.chmodSync(slot, 0o555);
  }
}

/** Removes a copy's work tree from its slot (the copy itself is removed by the review service). */
export function removeFromSlot(workTree: string): void {
  const slot = path.dirname(workTree);
  if (!hasSlot(slot)) return;
  fs.chmodSync(slot, 0o755);
  try {
    fs.rmSync(workTree, { recursive: true, force: true });
  } finally {
    fs.chmodSync(slot, 0o555);
  }
}

export function removeSlot(dir: string): void {
  if (!hasSlot(dir)) return;
  fs.chmodSync(dir, 0o755);
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

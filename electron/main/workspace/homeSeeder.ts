/**
 * Creates a sandbox home on the host and seeds it from the profile's template with
 * configuration files only (see policy/homeSeeding), within size caps. Seeding again never
 * overwrites what the chat changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { SEED_MAX_FILE_BYTES, SEED_MAX_TOTAL_BYTES, isSeedable, isSeedableFolder } from '../policy/homeSeeding.js';

export interface Owner {
  uid: number;
  gid: number;
}

function templateError(template: string, why: string, cause?: unknown): BerthError {
  return new BerthError('home_template_failed', `The profile's home template "${template}" ${why}, so the chat's sandbox was not started.`, {
    hint: 'Fix the folder, or clear the home template in the profile settings.',
    cause,
  });
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * The sandbox now runs as another uid (a read-write folder's owner, policy/writableFolders):
 * its home follows. lchown and no following of links: the home is written from inside the
 * container, so a link in it may point anywhere on the host.
 */
function reown(dir: string, owner: Owner): void {
  fs.lchownSync(dir, owner.uid, owner.gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) reown(p, owner);
    else fs.lchownSync(p, owner.uid, owner.gid);
  }
}

function chown(p: string, owner: Owner | null): void {
  if (owner) fs.lchownSync(p, owner.uid, owner.gid);
}

export function prepareHome(home: string, template: string | null, owner: Owner | null): void {
  if (template !== null) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(template);
    } catch (error) {
      throw templateError(template, 'does not exist', error);
    }
    if (!stat.isDirectory()) throw templateError(template, 'is not a folder');
    try {
      fs.accessSync(template, fs.constants.R_OK | fs.constants.X_OK);
    } catch (error) {
      throw templateError(template, 'cannot be read', error);
    }
  }
  const created = !fs.existsSync(home);
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  if (created) chown(home, owner);
  else if (owner && fs.lstatSync(home).uid !== owner.uid) reown(home, owner);
  if (template !== null) copyConfig(template, home, '', owner, { copied: 0, full: false });
}

/** Bytes copied so far in one seeding; once full, the rest of the template is skipped. */
interface Budget {
  copied: number;
  full: boolean;
}

// Never through a link; never blocking on a pipe swapped in after the listing.
const OPEN_TEMPLATE_FILE = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

function copyConfig(fromRoot: string, toRoot: string, rel: string, owner: Owner | null, budget: Budget): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(fromRoot, rel), { withFileTypes: true });
  } catch (error) {
    throw templateError(fromRoot, `has a folder that cannot be read (${rel || '.'})`, error);
  }
  // A stable order, so which files a full budget skips does not depend on the filesystem.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (budget.full) return;
    const childRel = rel ? path.join(rel, entry.name) : entry.name;
    // Links could point anywhere on the host (credentials included): never followed, neither
    // in the template nor in the home, where the sandbox itself may have planted one.
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory() ? !isSeedableFolder(childRel) : !entry.isFile() || !isSeedable(childRel)) continue;
    const dest = path.join(toRoot, childRel);
    const existing = lstatOrNull(dest);
    if (existing?.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      if (existing && !existing.isDirectory()) continue;
      if (!existing) {
        fs.mkdirSync(dest, { mode: 0o700 });
        chown(dest, owner);
      }
      copyConfig(fromRoot, toRoot, childRel, owner, budget);
    } else if (!existing) {
      copyFile(fromRoot, childRel, dest, owner, budget);
    }
  }
}

/**
 * Copies one template file unless it is over the per-file cap; stops the seeding when it would
 * go over the total cap. Reads through a descriptor opened without following links, so a file
 * swapped for a link after the listing is not followed, and reads at most the cap.
 */
function copyFile(fromRoot: string, rel: string, dest: string, owner: Owner | null, budget: Budget): void {
  const src = path.join(fromRoot, rel);
  let content: Buffer | null;
  let mode: number;
  try {
    const fd = fs.openSync(src, OPEN_TEMPLATE_FILE);
    try {
      const stat = fs.fstatSync(fd);
      mode = stat.mode & 0o777;
      content = stat.isFile() && stat.size <= SEED_MAX_FILE_BYTES ? readAtMost(fd, SEED_MAX_FILE_BYTES) : null;
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return;
    throw templateError(fromRoot, `has a file that cannot be copied (${rel})`, error);
  }
  if (content === null) return;
  if (budget.copied + content.length > SEED_MAX_TOTAL_BYTES) {
    budget.full = true;
    return;
  }
  try {
    // 'wx' creates the file and fails if anything (a link included) is already there.
    const fd = fs.openSync(dest, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, content);
      fs.fchmodSync(fd, mode);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    throw templateError(fromRoot, `has a file that cannot be copied (${rel})`, error);
  }
  budget.copied += content.length;
  chown(dest, owner);
}

/** The file's content, or null when it holds more than max bytes. */
function readAtMost(fd: number, max: number): Buffer | null {
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    length += n;
    if (length > max) return null;
    chunks.push(chunk.subarray(0, n));
  }
  return Buffer.concat(chunks, length);
}

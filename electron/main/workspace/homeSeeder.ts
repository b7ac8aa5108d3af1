/**
 * Creates a sandbox home on the host and seeds it from the profile's template with
 * configuration files only. Seeding again never overwrites what the chat changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { isSeedable } from '../policy/homeSeeding.js';

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
  if (template !== null) copyConfig(template, home, '', owner);
}

function copyConfig(fromRoot: string, toRoot: string, rel: string, owner: Owner | null): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(fromRoot, rel), { withFileTypes: true });
  } catch (error) {
    throw templateError(fromRoot, `has a folder that cannot be read (${rel || '.'})`, error);
  }
  for (const entry of entries) {
    const childRel = rel ? path.join(rel, entry.name) : entry.name;
    if (!isSeedable(childRel)) continue;
    const src = path.join(fromRoot, childRel);
    const dest = path.join(toRoot, childRel);
    // Links could point anywhere on the host (credentials included): never followed, neither
    // in the template nor in the home, where the sandbox itself may have planted one.
    if (entry.isSymbolicLink()) continue;
    const existing = lstatOrNull(dest);
    if (existing?.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      if (existing && !existing.isDirectory()) continue;
      if (!existing) {
        fs.mkdirSync(dest, { mode: 0o700 });
        chown(dest, owner);
      }
      copyConfig(fromRoot, toRoot, childRel, owner);
    } else if (entry.isFile() && !existing) {
      try {
        fs.copyFileSync(src, dest, fs.constants.COPYFILE_EXCL);
      } catch (error) {
        throw templateError(fromRoot, `has a file that cannot be copied (${childRel})`, error);
      }
      chown(dest, owner);
    }
  }
}

/**
 * Lists the folders (never files) under a host path, for the browser host's folder picker.
 * The folder the user picks still goes through workspace.attach and all of its checks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DirectoryListing } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { isDirectory } from '../base/isDirectory.js';

const MAX_ENTRIES = 2000;

/** Folders people keep their work in, tried in order when the home folder itself is refused. */
const WORK_FOLDERS = ['projects', 'Projects', 'src', 'code', 'work', 'dev', 'git', 'repos', 'Documents'];

/**
 * Lists `requested`, or where the picker starts: the home folder when it can be attached, else
 * the first of its usual work folders (or any folder in it) that can, else the home folder.
 * `refusal` is attach's own check (null: it can be attached), so the picker offers Choose only
 * where attach would accept.
 */
export function browseFolders(requested: string | undefined, refusal: (folder: string) => string | null = () => null): DirectoryListing {
  const explicit = requested !== undefined && requested.trim() !== '';
  const target = explicit ? path.resolve(requested) : startFolder(refusal);
  return { ...listFolders(target), refused: refusal(target) };
}

function startFolder(refusal: (folder: string) => string | null): string {
  const home = os.homedir();
  if (refusal(home) === null) return home;
  const children = (() => {
    try {
      return listFolders(home).entries.map((e) => e.path);
    } catch {
      return [];
    }
  })();
  const preferred = WORK_FOLDERS.map((n) => path.join(home, n)).filter((p) => children.includes(p));
  return [...preferred, ...children].find((p) => refusal(p) === null) ?? home;
}

function listFolders(target: string): Omit<DirectoryListing, 'refused'> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(target, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BerthError(
      code === 'ENOENT' || code === 'ENOTDIR' ? 'not_found' : 'invalid_request',
      code === 'ENOENT' || code === 'ENOTDIR' ? `There is no folder at "${target}".` : `Berth cannot read the folder "${target}" (${code ?? 'error'}).`,
      { hint: 'Pick another folder.' },
    );
  }
  const folders = entries
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || (e.isSymbolicLink() && isDirectory(path.join(target, e.name)))))
    .map((e) => ({ name: e.name, path: path.join(target, e.name) }))
    .sort((a, b) => a.name.localeCompare(b.name))
    .slice(0, MAX_ENTRIES);
  const parent = path.dirname(target);
  return { path: target, parent: parent === target ? null : parent, entries: folders };
}

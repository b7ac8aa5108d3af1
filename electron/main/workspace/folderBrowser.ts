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

export function browseFolders(requested: string | undefined): DirectoryListing {
  const target = path.resolve(requested && requested.trim() ? requested : os.homedir());
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

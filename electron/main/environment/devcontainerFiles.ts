/**
 * A folder's devcontainer files on this computer: where they are, their text (JSON with
 * comments, read by jsonc-parser), and a build context's files after its .dockerignore with
 * their digest. Nothing here follows a symbolic link: a link in a folder a sandbox may write
 * could point anywhere on this computer (a key, a token), and Berth never reads through it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import dockerIgnore from '@balena/dockerignore';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { BerthError } from '../../../shared/errors.js';

// A CommonJS module: its export is the factory itself (its types call it `default`).
const makeIgnore = ((dockerIgnore as unknown as { default?: unknown }).default ?? dockerIgnore) as unknown as typeof dockerIgnore.default;

/** The spec's places, in its order of preference. */
export function findConfigs(folder: string): string[] {
  const found: string[] = [];
  const isFile = (rel: string) => {
    try {
      return lstatInside(folder, rel)?.isFile() === true;
    } catch {
      return false;
    }
  };
  if (isFile('.devcontainer/devcontainer.json')) found.push('.devcontainer/devcontainer.json');
  if (isFile('.devcontainer.json')) found.push('.devcontainer.json');
  let names: string[] = [];
  try {
    if (lstatInside(folder, '.devcontainer')?.isDirectory()) names = fs.readdirSync(path.join(folder, '.devcontainer')).sort();
  } catch {
    names = [];
  }
  for (const name of names) {
    const rel = `.devcontainer/${name}/devcontainer.json`;
    if (isFile(rel)) found.push(rel);
  }
  return found;
}

/** lstat of a path inside the folder, refusing a symbolic link anywhere on the way. */
function lstatInside(folder: string, rel: string): fs.Stats | null {
  let at = folder;
  let stat: fs.Stats | null = fs.lstatSync(folder);
  for (const part of rel.split('/').filter((p) => p && p !== '.')) {
    if (part === '..') throw new BerthError('invalid_request', `${rel} leaves the folder.`);
    at = path.join(at, part);
    try {
      stat = fs.lstatSync(at);
    } catch {
      return null;
    }
    if (stat.isSymbolicLink()) {
      throw new BerthError('invalid_request', `${rel} goes through a symbolic link (${path.relative(folder, at)}), which Berth does not follow on this computer.`, {
        hint: 'Make it a plain file or folder in the repository.',
      });
    }
  }
  return stat;
}

/** A file inside the folder, read without following links; size-capped. */
export function readInside(folder: string, rel: string, maxBytes = 1024 * 1024): string {
  const stat = lstatInside(folder, rel);
  if (!stat?.isFile()) throw new BerthError('not_found', `${rel} is not a file in ${folder}.`, { hint: 'Check the path in devcontainer.json.' });
  if (stat.size > maxBytes) throw new BerthError('invalid_request', `${rel} is ${stat.size} bytes, more than Berth reads (${maxBytes}).`);
  const fd = fs.openSync(path.join(folder, rel), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** The devcontainer.json's text and its value; a syntax error says where. */
export function readConfig(folder: string, rel: string): { text: string; value: unknown } {
  const text = readInside(folder, rel);
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const before = text.slice(0, first.offset);
    const line = before.split('\n').length;
    const column = first.offset - before.lastIndexOf('\n');
    throw new BerthError('invalid_request', `${rel} is not valid JSON with comments: ${printParseErrorCode(first.error)} at line ${line}, column ${column}.`, {
      hint: 'Fix the file and choose "Use this project\'s environment" again.',
    });
  }
  return { text, value };
}

/** How many entries a build context may have: far above a repository's, far below a disk's. */
export const CONTEXT_MAX_ENTRIES = 100_000;

/**
 * The build context's entries after its .dockerignore (the Dockerfile and .dockerignore always
 * go, as Docker sends them), in a stable order, and a digest of their paths, modes and contents
 * (a link's target, never what it points to).
 */
export function contextFiles(folder: string, contextRel: string, dockerfileInContext: string): { files: string[]; digest: string } {
  const root = path.join(folder, contextRel);
  const stat = lstatInside(folder, contextRel);
  if (!stat?.isDirectory()) throw new BerthError('not_found', `The build context ${contextRel} is not a folder in ${folder}.`, { hint: 'Check "build.context" in devcontainer.json.' });
  let ignore: ((p: string) => boolean) | null = null;
  try {
    const rules = lstatInside(folder, path.posix.join(contextRel, '.dockerignore'))?.isFile() ? readInside(folder, path.posix.join(contextRel, '.dockerignore')) : '';
    const filter = makeIgnore({ ignorecase: false }).add(rules).createFilter();
    ignore = (p) => !filter(p);
  } catch {
    ignore = null;
  }
  const files: string[] = [];
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    const entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      const always = child === dockerfileInContext || child === '.dockerignore';
      if (!always && ignore?.(child)) continue;
      if (files.length >= CONTEXT_MAX_ENTRIES) {
        throw new BerthError('invalid_request', `The build context ${contextRel} has more than ${CONTEXT_MAX_ENTRIES} entries.`, { hint: 'List what the build does not need in .dockerignore.' });
      }
      const full = path.join(root, child);
      const st = fs.lstatSync(full);
      if (e.isDirectory()) {
        walk(child);
        continue;
      }
      files.push(child);
      hash.update(`${child}\0${st.mode}\0`);
      if (st.isSymbolicLink()) hash.update(fs.readlinkSync(full));
      else if (st.isFile()) hash.update(fs.readFileSync(full));
      hash.update('\0');
    }
  };
  walk('');
  return { files, digest: hash.digest('hex') };
}

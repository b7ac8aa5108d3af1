/**
 * git's tree objects, read and made in Berth: a tree from another tree with some paths set to
 * new blobs or removed, as `git read-tree` + `update-index --index-info` + `write-tree` would
 * make it, without the three git processes (review/partialApply records the trees of an apply
 * of chosen lines this way). Object ids as git computes them: the hash of "<type> <size>\0"
 * and the content (SHA-1, or SHA-256 in a repository made with it). Pure.
 */
import { createHash } from 'node:crypto';

export type HashAlgo = 'sha1' | 'sha256';

export const TREE_MODE = '40000';

/** The hash a repository uses, from one of its object ids (40 hex digits: SHA-1; 64: SHA-256). */
export function hashAlgoOf(oid: string): HashAlgo {
  if (/^[0-9a-f]{40}$/.test(oid)) return 'sha1';
  if (/^[0-9a-f]{64}$/.test(oid)) return 'sha256';
  throw new Error(`"${oid}" is not a git object id`);
}

/** What git names an object of this type and content. */
export function objectId(type: 'blob' | 'tree', content: Buffer, algo: HashAlgo): string {
  return createHash(algo).update(`${type} ${content.length}\0`).update(content).digest('hex');
}

export interface TreeEntry {
  /** As a tree holds it: 100644, 100755, 120000, 160000 or 40000 (a tree). */
  mode: string;
  /** The name's bytes (a name need not be UTF-8: kept as it was). */
  name: Buffer;
  oid: string;
}

/** A tree object's entries, in its order. */
export function parseTree(content: Buffer, algo: HashAlgo): TreeEntry[] {
  const size = algo === 'sha1' ? 20 : 32;
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 1 + size > content.length) throw new Error('a tree object git could not have written (cut short)');
    entries.push({ mode: content.subarray(at, space).toString('latin1'), name: Buffer.from(content.subarray(space + 1, nul)), oid: content.subarray(nul + 1, nul + 1 + size).toString('hex') });
    at = nul + 1 + size;
  }
  return entries;
}

/** git's order of a tree's entries: by name's bytes, a tree's name as if it ended in "/". */
function sortKey(e: TreeEntry): Buffer {
  return e.mode === TREE_MODE ? Buffer.concat([e.name, Buffer.from('/')]) : e.name;
}

/** A tree object's content, its entries sorted as git sorts them. */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
  return Buffer.concat(sorted.flatMap((e) => [Buffer.from(`${e.mode} `), e.name, Buffer.from([0]), Buffer.from(e.oid, 'hex')]));
}

/** A path's new entry (a blob's mode and id), or null: the path is removed. */
export type EntryChange = { mode: string; oid: string } | null;

export interface EditedTree {
  /** The new root tree's id. */
  root: string;
  /** The tree objects made (the root and every tree on a changed path), to be written. */
  trees: { oid: string; content: Buffer }[];
  /** Each folder on a changed path as the new tree has it (null: no longer there). */
  folders: Map<string, Buffer | null>;
}

/** The folders a path lies in, outermost first: '' (the root), 'a', 'a/b' for 'a/b/c'. */
export function foldersOf(p: string): string[] {
  const parts = p.split('/');
  return parts.map((_, i) => parts.slice(0, i).join('/'));
}

function parentOf(dir: string): string {
  return dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/**
 * The tree `trees.get('')` with `changes` made to it. `trees` holds each folder a changed path
 * lies in (foldersOf), as it is in the old tree: its content, or null where the old tree has no
 * such folder. A folder left empty is removed, as git's write-tree leaves it out. A change that
 * would put a file where a folder is, or a folder where a file is, is an error (said in words):
 * applying chosen lines never changes a path's kind.
 */
export function editTree(trees: ReadonlyMap<string, Buffer | null>, changes: ReadonlyMap<string, EntryChange>, algo: HashAlgo): EditedTree | { error: string } {
  // What changes in each folder: its files, then (filled in deepest first) its changed folders.
  const inFolder = new Map<string, { name: string; entry: EntryChange; tree: boolean }[]>([['', []]]);
  for (const [p, entry] of changes) {
    for (const d of foldersOf(p)) if (!inFolder.has(d)) inFolder.set(d, []);
    inFolder.get(parentOf(p))!.push({ name: baseName(p), entry, tree: false });
  }
  const order = [...inFolder.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : b.split('/').length - a.split('/').length));
  const made: { oid: string; content: Buffer }[] = [];
  const folders = new Map<string, Buffer | null>();
  let root = '';
  for (const dir of order) {
    const old = trees.get(dir) ?? null;
    const entries = new Map((old === null ? [] : parseTree(old, algo)).map((e) => [e.name.toString('latin1'), e]));
    for (const { name, entry, tree } of inFolder.get(dir)!) {
      const key = Buffer.from(name, 'utf8');
      const was = entries.get(key.toString('latin1'));
      if (was && (was.mode === TREE_MODE) !== tree) return { error: `"${dir === '' ? name : `${dir}/${name}`}" is a ${tree ? 'file' : 'folder'} in the copy's base` };
      entries.delete(key.toString('latin1'));
      if (entry) entries.set(key.toString('latin1'), { mode: entry.mode, name: key, oid: entry.oid });
    }
    const content = serializeTree([...entries.values()]);
    const oid = objectId('tree', content, algo);
    if (dir === '') {
      root = oid;
      folders.set('', content);
      made.push({ oid, content });
      continue;
    }
    const gone = entries.size === 0;
    folders.set(dir, gone ? null : content);
    if (!gone) made.push({ oid, content });
    inFolder.get(parentOf(dir))!.push({ name: baseName(dir), entry: gone ? null : { mode: TREE_MODE, oid }, tree: true });
  }
  return { root, trees: made, folders };
}

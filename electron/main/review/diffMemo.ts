/**
 * git's answers about two trees of Berth's repository, kept for the next question: a tree's id
 * names its content, so the changes between two trees, one file's diff between them and a tree
 * object never change, and a kept answer is the answer. An apply of chosen lines asks again what
 * the panel asked a moment before (the changes for the version check, each chosen file's diff as
 * review.diff showed it, the base's folders): three git processes at once that were a third of
 * its time (bench:review --hunks-only). Bounded (oldest dropped first); per tracking repository.
 */
import type { RawChange } from '../policy/reviewPolicy.js';
import { readObjects } from './blobBatch.js';
import type { ReviewCopy } from './reviewCopy.js';

const MAX_DIFFS = 16;
const MAX_PATCH_BYTES = 32 * 1024 * 1024;
const MAX_TREE_BYTES = 16 * 1024 * 1024;

/** A Map kept in the order of use, dropping the least recently used over `max` (by `size`). */
class Kept<V> {
  private readonly map = new Map<string, V>();
  private used = 0;
  constructor(private readonly max: number, private readonly size: (v: V) => number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.delete(key);
    this.map.set(key, v);
    this.used += this.size(v);
    for (const [k] of this.map) {
      if (this.used <= this.max || this.map.size === 1) break;
      this.delete(k);
    }
  }
  delete(key: string): void {
    const old = this.map.get(key);
    if (old === undefined) return;
    this.used -= this.size(old);
    this.map.delete(key);
  }
}

const diffs = new Kept<Promise<RawChange[]>>(MAX_DIFFS, () => 1);
const patches = new Kept<string>(MAX_PATCH_BYTES, (t) => t.length);
const trees = new Kept<{ content: Buffer | null }>(MAX_TREE_BYTES, (t) => (t.content?.length ?? 0) + 64);

/**
 * The changes from tree `from` to tree `to` (ReviewCopy.diff), kept: the same list for every
 * asker, not to be changed. Asking while git is still working waits for the same answer: an
 * apply starts the diff of its new base while it writes the folder.
 */
export function treeChanges(copy: ReviewCopy, from: string, to: string): Promise<readonly RawChange[]> {
  const key = `${copy.trackDir}\0${from}\0${to}`;
  const kept = diffs.get(key);
  if (kept) return kept;
  const asked = copy.diff(from, to);
  diffs.set(key, asked);
  asked.catch(() => diffs.delete(key));
  return asked;
}

/** One git diff split into its files, by each file's `diff --git` header. */
export function splitByFile(text: string): Map<string, string> {
  const byHeader = new Map<string, string>();
  for (const s of text.split(/^(?=diff --git )/m)) if (s.startsWith('diff --git ')) byHeader.set(s.slice(0, s.indexOf('\n')), s);
  return byHeader;
}

/**
 * The diffs of `paths` from `from` to `to` (ReviewCopy.patch, one git process), by each file's
 * `diff --git` header. `reuse(header)`: a file whose kept diff may answer (one git diff-tree
 * gives a changed file the same text whichever other paths it was asked with; a renamed or
 * added one may pair with another asked path, so only the caller knows); the others are asked.
 */
export async function filePatches(copy: ReviewCopy, from: string, to: string, paths: readonly string[], reuse: (path: string) => string | null = () => null): Promise<Map<string, string>> {
  const base = `${copy.trackDir}\0${from}\0${to}\0`;
  const out = new Map<string, string>();
  const ask: string[] = [];
  for (const p of paths) {
    const header = reuse(p);
    const kept = header === null ? undefined : patches.get(base + header);
    if (kept !== undefined && header !== null) out.set(header, kept);
    else ask.push(p);
  }
  if (ask.length > 0) {
    for (const [header, text] of splitByFile(await copy.patch(from, to, ask))) {
      patches.set(base + header, text);
      out.set(header, text);
    }
  }
  return out;
}

/**
 * Tree objects of Berth's repository by `tree:folder` (the folder '' is the tree itself), kept:
 * null where the tree has no such folder. One cat-file for those not kept.
 */
export async function treeObjects(copy: Pick<ReviewCopy, 'trackDir'>, tree: string, folders: readonly string[]): Promise<Map<string, Buffer | null>> {
  const key = (d: string) => `${copy.trackDir}\0${tree}\0${d}`;
  const out = new Map<string, Buffer | null>();
  const ask = folders.filter((d) => {
    const kept = trees.get(key(d));
    if (kept !== undefined) out.set(d, kept.content);
    return kept === undefined;
  });
  if (ask.length === 0) return out;
  const got = await readObjects(copy, ask.map((d) => (d === '' ? tree : `${tree}:${d}`)));
  ask.forEach((d, i) => {
    const o = got[i];
    const content = o?.type === 'tree' ? Buffer.from(o.data) : null;
    out.set(d, content);
    trees.set(key(d), { content });
  });
  return out;
}

/** The folders of a tree Berth made (policy/gitTree): the next apply on that base reads none of them. */
export function keepTrees(copy: Pick<ReviewCopy, 'trackDir'>, tree: string, folders: ReadonlyMap<string, Buffer | null>): void {
  for (const [d, content] of folders) trees.set(`${copy.trackDir}\0${tree}\0${d}`, { content });
}

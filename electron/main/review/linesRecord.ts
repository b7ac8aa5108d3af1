/**
 * The end of an apply of chosen lines (review/partialApply), once every file fits: the trees
 * an undo and the copy's base need, made in Berth (policy/gitTree) and written into its own
 * repository as loose objects, then the folder's files, all or nothing (applyToFolder). git apply
 * --cached, write-tree, a diff-tree of what to write and a read of it were four git processes
 * one after another here (bench:review --hunks-only).
 */
import { BerthError } from '../../../shared/errors.js';
import { editTree, type EntryChange, type HashAlgo } from '../policy/gitTree.js';
import { applyWrites, type FolderWrite, type KnownFile } from './applyToFolder.js';
import { keepTrees, treeChanges } from './diffMemo.js';
import { writeLooseObjects, type NewObject } from './looseObjects.js';
import type { ReviewCopy } from './reviewCopy.js';

/** One file's part in an apply: its entry in the folder before and after, and in the copy's base after. */
export interface FileApply {
  path: string;
  before: EntryChange;
  after: EntryChange;
  baseAfter: EntryChange;
  /** Its entry in the copy's base now. */
  baseBefore: EntryChange;
  /** The file's new bytes (unused when `after` is null: it is removed). */
  content: Buffer;
  /** The folder's file as it was read to make `content`, when there was one. */
  read: KnownFile | null;
}

const same = (a: EntryChange, b: EntryChange) => a?.mode === b?.mode && a?.oid === b?.oid;

/**
 * Records the trees (each the base with the applied files as the folder had them before, as it
 * has them after, and as the base has them after: only the applied paths of the folder's two are
 * ever read, by undoApply), then writes the folder. Returns the paths written.
 */
export function recordAndWrite(
  copy: ReviewCopy,
  applied: readonly FileApply[],
  blobs: readonly NewObject[],
  folders: ReadonlyMap<string, Buffer | null>,
  algo: HashAlgo,
  snapTree: string,
  now: number,
): string[] {
  const made = [...blobs];
  const tree = (pick: (f: FileApply) => EntryChange) => {
    const out = editTree(folders, new Map(applied.map((f) => [f.path, pick(f)])), algo);
    if ('error' in out) throw new BerthError('review_failed', `The chosen lines cannot be applied: ${out.error}.`, { hint: 'Apply the whole file instead.' });
    made.push(...out.trees.map((t) => ({ type: 'tree' as const, ...t })));
    return out;
  };
  // Where the folder's files were the base's (the usual case), the folder's trees are the base's: made once.
  const baseAfter = tree((f) => f.baseAfter);
  const asBase = applied.every((f) => same(f.before, f.baseBefore));
  const userBefore = asBase ? { root: copy.meta.baseTree } : tree((f) => f.before);
  const userAfter = asBase && applied.every((f) => same(f.after, f.baseAfter)) ? baseAfter : tree((f) => f.after);
  writeLooseObjects(copy.trackDir, made);
  keepTrees(copy, baseAfter.root, baseAfter.folders);
  // The copy's changes against the new base, which the count after the apply asks for: git works
  // on them while the folder is written (its answer is kept, diffMemo). Unused if the write fails.
  treeChanges(copy, baseAfter.root, snapTree).catch(() => undefined);
  const changed = applied.filter((f) => !same(f.before, f.after));
  const writes: FolderWrite[] = changed.map((f) => (f.after ? { kind: 'file', path: f.path, content: f.content, executable: f.after.mode === '100755', replaces: f.read } : { kind: 'delete', path: f.path }));
  const madeDirs = applyWrites(copy.meta.hostPath, writes);
  const files = changed.map((f) => f.path);
  copy.meta.lastApply = { before: copy.meta.baseTree, after: baseAfter.root, files, madeDirs, at: now, userBefore: userBefore.root, userAfter: userAfter.root };
  copy.meta.baseTree = baseAfter.root;
  copy.saveMeta();
  return files;
}

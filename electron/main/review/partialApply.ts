/**
 * Apply by hunk and by line: the chosen lines of the chat's changes (policy/hunkPatch) put into
 * the user's files as they are now. Berth checks that every chosen hunk fits each file without
 * ambiguity, then makes the new text itself (policy/hunkApply: exactly the file's own lines and
 * the chosen ones, or the hunk that does not fit is named), from the folder's bytes read
 * link-safe (folderFiles) and git's own diff of the copy: no git apply, no work tree, so no
 * filter, attribute of the copy or the folder, hook or configuration of anyone's has a say.
 * Nothing is written unless every file fits; then the files are written by applyToFolder, all or
 * nothing, never through a link, and the copy's base takes the same lines, so what was not
 * chosen stays a change still to apply. The trees an undo needs (the folder's applied files
 * before and after, the base after) are made in Berth (policy/gitTree) and written into its own
 * repository as loose objects: git apply --cached, write-tree, a diff-tree of what to write and
 * a read of it were five git processes one after another (12.9x git apply's time before).
 */
import { BerthError } from '../../../shared/errors.js';
import { REVIEW_LIMITS, type ApplyProblem, type HunkConflict, type LineSelection } from '../../../shared/review.js';
import { editTree, foldersOf, hashAlgoOf, objectId, type EntryChange, type HashAlgo } from '../policy/gitTree.js';
import { patchedText } from '../policy/hunkApply.js';
import { parseFilePatch, selectHunks, selectsAll, type FilePatch, type Hunk } from '../policy/hunkPatch.js';
import { GITLINK_MODE, SYMLINK_MODE, touchedPaths, unsafePathReason, type RawChange } from '../policy/reviewPolicy.js';
import { applyWrites, type FolderWrite } from './applyToFolder.js';
import { readObjects } from './blobBatch.js';
import type { CopyTools } from './copyTools.js';
import { readFolderFiles } from './folderFiles.js';
import { writeLooseObjects, type NewObject } from './looseObjects.js';
import type { ReviewCopy } from './reviewCopy.js';

export interface LinesOutcome {
  ok: boolean;
  applied: string[];
  conflicts: HunkConflict[];
  problems: ApplyProblem[];
  message: string;
}

/** One git diff split into its files, by each file's `diff --git` header. */
export function splitByFile(text: string): Map<string, string> {
  const byHeader = new Map<string, string>();
  for (const s of text.split(/^(?=diff --git )/m)) if (s.startsWith('diff --git ')) byHeader.set(s.slice(0, s.indexOf('\n')), s);
  return byHeader;
}

/** Text whose bytes survive a round trip through a JavaScript string: a patch of it says exactly its bytes. */
function isUtf8(buf: Buffer): boolean {
  return Buffer.from(buf.toString('utf8'), 'utf8').equals(buf);
}

/** Why a change can only be applied whole (review.apply), or null. */
function wholeOnly(c: RawChange, patch: FilePatch | null): string | null {
  if (c.newMode === SYMLINK_MODE || c.oldMode === SYMLINK_MODE) return 'it is a link';
  if (c.newMode === GITLINK_MODE || c.oldMode === GITLINK_MODE) return 'it is a nested repository';
  if (c.status === 'renamed' || c.status === 'typechange') return `it was ${c.status === 'renamed' ? 'renamed' : 'changed in kind'}`;
  if (!patch || patch.hunks.length === 0) return 'it has no lines to choose (binary, or only its mode changed)';
  return null;
}


/** One file's part in an apply: its entry in the folder before and after, and in the copy's base after. */
interface FileApply {
  path: string;
  before: EntryChange;
  after: EntryChange;
  baseAfter: EntryChange;
  /** The file's new bytes (unused when `after` is null: it is removed). */
  content: Buffer;
}

const modeOf = (executable: boolean) => (executable ? '100755' : '100644');

/** A blob's id; its content goes with the objects to write unless the repository has it already (`known`). */
function blobOf(content: Buffer, algo: HashAlgo, objects: NewObject[], known: readonly string[]): string {
  const oid = objectId('blob', content, algo);
  if (!known.includes(oid)) objects.push({ type: 'blob', oid, content });
  return oid;
}

function conflictOf(path: string, fit: { why: HunkConflict['why']; hunk: Hunk; theirsStart: number; theirs: string[] }): HunkConflict {
  return {
    path, why: fit.why, mineStart: fit.theirsStart, mine: fit.theirs,
    base: fit.hunk.lines.filter((l) => l.kind !== '+').map((l) => l.text), chat: fit.hunk.lines.filter((l) => l.kind !== '-').map((l) => l.text),
  };
}

/**
 * Applies the chosen lines against `snap` (the copy's snapshot the caller checked the version
 * on: taken once, not again here). Nothing is written unless every chosen hunk fits the folder
 * now; the conflicts are returned with both sides instead.
 */
export async function applyLines(copy: ReviewCopy, selections: readonly LineSelection[], tools: Pick<CopyTools, 'now'>, snap: { tree: string }): Promise<LinesOutcome> {
  const base = copy.meta.baseTree;
  const algo = hashAlgoOf(base);
  // The copy's changes, the diffs of the asked paths, both sides of each and the base's folders
  // on their way, by three git processes at once (one after the other they were a third of an
  // apply's time, bench:review). What is read for a path that turns out not to be a change is
  // never used; a path that cannot be one (outside the folder: git would stop on it) is not
  // asked, and is refused below.
  const asked = [...new Set(selections.map((s) => s.path))].filter((p) => unsafePathReason(p) === null);
  const folders = [...new Set(asked.flatMap(foldersOf))];
  const reads = Promise.all([
    copy.diff(base, snap.tree),
    copy.patch(base, snap.tree, asked),
    readObjects(copy, [...asked.flatMap((p) => [`${base}:${p}`, `${snap.tree}:${p}`]), ...folders.map((d) => (d === '' ? base : `${base}:${d}`))]),
  ]);
  // The folder's files while git works.
  const mineOf = readFolderFiles(copy.meta.hostPath, asked, REVIEW_LIMITS.maxTrackedFileBytes);
  const [changes, patchText, objects] = await reads;
  const blob = (i: number) => (objects[i]?.type === 'blob' ? objects[i]!.data : null);
  const problems: ApplyProblem[] = [];
  const picked: { c: RawChange; sel: LineSelection }[] = [];
  for (const sel of selections) {
    const c = changes.find((x) => x.path === sel.path);
    if (!c) {
      problems.push({ path: sel.path, kind: 'unsafe_path', message: `"${sel.path}" has no changes in the chat's copy (any more). Reload the Changes panel.` });
      continue;
    }
    const unsafe = touchedPaths(c).map(unsafePathReason).find(Boolean);
    if (unsafe) problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" cannot be applied: ${unsafe}` });
    else picked.push({ c, sel });
  }
  const texts = splitByFile(patchText);
  const conflicts: HunkConflict[] = [];
  const applied: FileApply[] = [];
  const made: NewObject[] = [];
  for (const { c, sel } of picked) {
    const text = texts.get(`diff --git a/${c.path} b/${c.path}`);
    const patch = text === undefined ? null : parseFilePatch(text);
    const i = asked.indexOf(c.path);
    const [baseBuf, newBuf] = [blob(2 * i) ?? Buffer.alloc(0), blob(2 * i + 1) ?? Buffer.alloc(0)];
    const mine = mineOf.get(c.path) ?? { kind: 'missing' as const };
    const why = wholeOnly(c, patch) ?? (isUtf8(baseBuf) && isUtf8(newBuf) ? null : 'it is not UTF-8 text');
    if (why || !patch) {
      problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" can only be applied as a whole file: ${why}.` });
      continue;
    }
    if ((c.status === 'added' || c.status === 'deleted') && !selectsAll(patch, sel)) {
      problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" was ${c.status} by the chat: it is applied with all its lines or not at all.` });
      continue;
    }
    const hunks = selectHunks(patch, sel);
    if (hunks.length === 0) continue;
    if (mine.kind === 'other') {
      problems.push({ path: c.path, kind: 'unsafe_path', message: mine.why });
      continue;
    }
    const mineBuf = mine.kind === 'file' ? mine.data : null;
    if (mine.kind === 'large' || (mineBuf === null) !== (c.status === 'added')) {
      const hunk = patch.hunks[0];
      conflicts.push({
        path: c.path, why: 'gone', mineStart: 1, base: hunk?.lines.filter((l) => l.kind !== '+').map((l) => l.text) ?? [],
        mine: mineBuf === null ? [] : mineBuf.toString('utf8').split('\n').slice(0, 3), chat: hunk?.lines.filter((l) => l.kind !== '-').map((l) => l.text) ?? [],
      });
      continue;
    }
    if (mineBuf !== null && !isUtf8(mineBuf)) {
      problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" can only be applied as a whole file: it is not UTF-8 text in your folder now.` });
      continue;
    }
    const mineText = (mineBuf ?? Buffer.alloc(0)).toString('utf8');
    const baseText = baseBuf.toString('utf8');
    const out = patchedText(hunks, baseText, mineText);
    if (!out.ok) {
      conflicts.push(conflictOf(c.path, out.fit));
      continue;
    }
    if (c.status === 'deleted' && out.text !== '') {
      // The user added lines to a file the chat deleted: removing it would lose them.
      conflicts.push(conflictOf(c.path, { why: 'changed', hunk: hunks[0]!, theirsStart: 1, theirs: out.text.split('\n').slice(0, 3) }));
      continue;
    }
    // The chosen lines in the copy's base too: the same text where the folder is as the base has it.
    const baseOut = mineText === baseText ? out : patchedText(hunks, baseText, baseText);
    if (!baseOut.ok) throw new BerthError('review_failed', `The chosen lines of "${c.path}" do not apply to the copy's own base.`, { hint: 'Reload the Changes panel and choose again.' });
    const modeChange = c.oldMode !== c.newMode ? c.newMode : null;
    const known = [c.oldOid, c.newOid];
    const before: EntryChange = mine.kind === 'file' ? { mode: modeOf(mine.executable), oid: blobOf(mine.data, algo, made, known) } : null;
    const deleted = c.status === 'deleted';
    const content = Buffer.from(out.text, 'utf8');
    applied.push({
      path: c.path, before, content,
      after: deleted ? null : { mode: modeChange ?? before?.mode ?? c.newMode, oid: blobOf(content, algo, made, known) },
      baseAfter: deleted ? null : { mode: modeChange ?? c.oldMode, oid: baseOut === out ? objectId('blob', content, algo) : blobOf(Buffer.from(baseOut.text, 'utf8'), algo, made, known) },
    });
  }
  const refuse = (message: string): LinesOutcome => ({ ok: false, applied: [], conflicts, problems, message });
  if (problems.length) return refuse(`Nothing was applied: ${problems[0]!.message}`);
  if (conflicts.length) {
    const files = [...new Set(conflicts.map((c) => c.path))];
    return refuse(`Nothing was applied: ${conflicts.length === 1 ? 'one hunk does' : `${conflicts.length} hunks do`} not fit your folder as it is now (${files.slice(0, 3).join(', ')}). Choose how to resolve ${conflicts.length === 1 ? 'it' : 'them'}.`);
  }
  if (applied.length === 0) return { ok: true, applied: [], conflicts, problems, message: 'No lines were chosen; nothing was applied.' };
  return writeApplied(copy, applied, made, folders.map((d, k) => [d, objects[2 * asked.length + k]?.type === 'tree' ? objects[2 * asked.length + k]!.data : null] as const), algo, tools.now());
}

const same = (a: EntryChange, b: EntryChange) => a?.mode === b?.mode && a?.oid === b?.oid;

/**
 * Records the trees an undo and the copy's base need (each the base with the applied files as
 * the folder had them before, after, and the base after), then writes the folder, all or nothing.
 * Only the applied paths of the folder's trees are ever read (undoApply): the rest is the base's.
 */
function writeApplied(copy: ReviewCopy, applied: readonly FileApply[], made: NewObject[], folders: readonly (readonly [string, Buffer | null])[], algo: HashAlgo, now: number): LinesOutcome {
  const trees = new Map(folders);
  const tree = (pick: (f: FileApply) => EntryChange) => {
    const out = editTree(trees, new Map(applied.map((f) => [f.path, pick(f)])), algo);
    if ('error' in out) throw new BerthError('review_failed', `The chosen lines cannot be applied: ${out.error}.`, { hint: 'Apply the whole file instead.' });
    made.push(...out.trees.map((t) => ({ type: 'tree' as const, ...t })));
    return out.root;
  };
  const [userBefore, userAfter, baseAfter] = [tree((f) => f.before), tree((f) => f.after), tree((f) => f.baseAfter)];
  writeLooseObjects(copy.trackDir, made);
  const changed = applied.filter((f) => !same(f.before, f.after));
  const writes: FolderWrite[] = changed.map((f) => (f.after ? { kind: 'file', path: f.path, content: f.content, executable: f.after.mode === '100755' } : { kind: 'delete', path: f.path }));
  const madeDirs = applyWrites(copy.meta.hostPath, writes);
  const files = changed.map((f) => f.path);
  copy.meta.lastApply = { before: copy.meta.baseTree, after: baseAfter, files, madeDirs, at: now, userBefore, userAfter };
  copy.meta.baseTree = baseAfter;
  copy.saveMeta();
  return {
    ok: true, applied: files, conflicts: [], problems: [],
    message: `Applied the chosen lines of ${files.length} ${files.length === 1 ? 'file' : 'files'} to ${copy.meta.hostPath}${copy.meta.kind === 'git' ? ' as uncommitted changes' : ''}; the rest stays in the chat's copy.`,
  };
}

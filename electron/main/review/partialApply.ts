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
 * a read of it were four git processes one after another (bench:review --hunks-only).
 */
import { isUtf8 } from 'node:buffer';
import { BerthError } from '../../../shared/errors.js';
import { REVIEW_LIMITS, type ApplyProblem, type HunkConflict, type LineSelection } from '../../../shared/review.js';
import { foldersOf, hashAlgoOf, objectId, type EntryChange, type HashAlgo } from '../policy/gitTree.js';
import { patchedText } from '../policy/hunkApply.js';
import { parseFilePatch, selectHunks, selectsAll, type FilePatch, type Hunk } from '../policy/hunkPatch.js';
import { GITLINK_MODE, SYMLINK_MODE, touchedPaths, unsafePathReason, type RawChange } from '../policy/reviewPolicy.js';
import { readBlobs } from './blobBatch.js';
import type { CopyTools } from './copyTools.js';
import { filePatches, treeChanges, treeObjects } from './diffMemo.js';
import { readFolderFiles, type FolderFile } from './folderFiles.js';
import { recordAndWrite, type FileApply } from './linesRecord.js';
import type { NewObject } from './looseObjects.js';
import type { ReviewCopy } from './reviewCopy.js';

export interface LinesOutcome {
  ok: boolean;
  applied: string[];
  conflicts: HunkConflict[];
  problems: ApplyProblem[];
  message: string;
}

/** Why a change can only be applied whole (review.apply), or null. */
function wholeOnly(c: RawChange, patch: FilePatch | null): string | null {
  if (c.newMode === SYMLINK_MODE || c.oldMode === SYMLINK_MODE) return 'it is a link';
  if (c.newMode === GITLINK_MODE || c.oldMode === GITLINK_MODE) return 'it is a nested repository';
  if (c.status === 'renamed' || c.status === 'typechange') return `it was ${c.status === 'renamed' ? 'renamed' : 'changed in kind'}`;
  if (!patch || patch.hunks.length === 0) return 'it has no lines to choose (binary, or only its mode changed)';
  return null;
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

/** A chosen file that is one of the copy's changes, with what is known of it before any blob is read. */
interface Picked {
  c: RawChange;
  sel: LineSelection;
  text: string | undefined;
  mine: FolderFile;
  /** The folder's file is the base's (same blob id): the base need not be read. */
  mineIsBase: boolean;
}

/**
 * Applies the chosen lines against `snap` (the copy's snapshot the caller checked the version
 * on: taken once, not again here). Nothing is written unless every chosen hunk fits the folder
 * now; the conflicts are returned with both sides instead.
 */
export async function applyLines(copy: ReviewCopy, selections: readonly LineSelection[], tools: Pick<CopyTools, 'now'>, snap: { tree: string }): Promise<LinesOutcome> {
  const base = copy.meta.baseTree;
  const algo = hashAlgoOf(base);
  // A path that cannot be a change (outside the folder: git would stop on it) is not asked, and is refused below.
  const asked = [...new Set(selections.map((s) => s.path))].filter((p) => unsafePathReason(p) === null);
  // What git is asked (the copy's changes, the base's folders on the chosen paths) is what the
  // version check and the panel asked a moment before: kept (diffMemo), or one process each at once.
  const folders = treeObjects(copy, base, [...new Set(asked.flatMap(foldersOf))]);
  const changesNow = treeChanges(copy, base, snap.tree);
  folders.catch(() => undefined);
  // The folder's files while git works.
  const mineOf = readFolderFiles(copy.meta.hostPath, asked, REVIEW_LIMITS.maxTrackedFileBytes);
  const changes = await changesNow;
  const problems: ApplyProblem[] = [];
  const chosen: { c: RawChange; sel: LineSelection }[] = [];
  for (const sel of selections) {
    const c = changes.find((x) => x.path === sel.path);
    if (!c) {
      problems.push({ path: sel.path, kind: 'unsafe_path', message: `"${sel.path}" has no changes in the chat's copy (any more). Reload the Changes panel.` });
      continue;
    }
    const unsafe = touchedPaths(c).map(unsafePathReason).find(Boolean);
    if (unsafe) problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" cannot be applied: ${unsafe}` });
    else chosen.push({ c, sel });
  }
  // A changed file's diff is the same whichever paths it is asked with: the one review.diff showed is kept.
  const byStatus = new Map(chosen.map(({ c }) => [c.path, c.status]));
  const texts = await filePatches(copy, base, snap.tree, asked, (p) => (byStatus.get(p) === 'modified' ? `diff --git a/${p} b/${p}` : null));
  const picked: Picked[] = chosen.map(({ c, sel }) => {
    const mine = mineOf.get(c.path) ?? { kind: 'missing' };
    return { c, sel, text: texts.get(`diff --git a/${c.path} b/${c.path}`), mine, mineIsBase: mine.kind === 'file' && objectId('blob', mine.data, algo) === c.oldOid };
  });
  // Blobs only where the folder's file is not the base's (its text is needed), and both sides
  // where the diff is not plain UTF-8 (U+FFFD: what git printed may not say the bytes).
  const sides = (p: Picked) => [...(p.mineIsBase || p.c.status === 'added' ? [] : [`${base}:${p.c.path}`]), ...(p.text?.includes('\uFFFD') ? [`${base}:${p.c.path}`, `${snap.tree}:${p.c.path}`] : [])];
  const revs = [...new Set(picked.flatMap(sides))];
  const blobs = new Map((await readBlobs(copy, revs)).map((b, i) => [revs[i]!, b]));
  const conflicts: HunkConflict[] = [];
  const applied: FileApply[] = [];
  const made: NewObject[] = [];
  for (const { c, sel, text, mine, mineIsBase } of picked) {
    const patch = text === undefined ? null : parseFilePatch(text);
    const mineBuf = mine.kind === 'file' ? mine.data : null;
    const baseBuf = mineIsBase ? mineBuf! : (blobs.get(`${base}:${c.path}`) ?? Buffer.alloc(0));
    // Lines are worked on as JavaScript strings, which say exactly the bytes of valid UTF-8 only. The new file is
    // not read when the diff has no U+FFFD: it is the base and the diff's lines, UTF-8 when the base is. Null: there is none.
    const newBuf = blobs.get(`${snap.tree}:${c.path}`);
    const why = wholeOnly(c, patch) ?? (isUtf8(baseBuf) && (!newBuf || isUtf8(newBuf)) ? null : 'it is not UTF-8 text');
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
    if (mine.kind === 'large' || (mineBuf === null) !== (c.status === 'added')) {
      const hunk = patch.hunks[0];
      conflicts.push({
        path: c.path, why: 'gone', mineStart: 1, base: hunk?.lines.filter((l) => l.kind !== '+').map((l) => l.text) ?? [],
        mine: mineBuf === null ? [] : mineBuf.toString('utf8').split('\n').slice(0, 3), chat: hunk?.lines.filter((l) => l.kind !== '-').map((l) => l.text) ?? [],
      });
      continue;
    }
    if (mineBuf !== null && !mineIsBase && !isUtf8(mineBuf)) {
      problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" can only be applied as a whole file: it is not UTF-8 text in your folder now.` });
      continue;
    }
    const mineText = (mineBuf ?? Buffer.alloc(0)).toString('utf8');
    const baseText = mineIsBase ? mineText : baseBuf.toString('utf8');
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
    const known = [c.oldOid, c.newOid];
    // The folder's file as the base has it is the base's blob, already hashed to tell so.
    const before: EntryChange = mine.kind === 'file' ? { mode: modeOf(mine.executable), oid: mineIsBase ? c.oldOid : blobOf(mine.data, algo, made, known) } : null;
    const content = Buffer.from(out.text, 'utf8');
    const deleted = c.status === 'deleted';
    const modeChange = c.oldMode !== c.newMode ? c.newMode : null;
    const oid = deleted ? '' : blobOf(content, algo, made, known);
    applied.push({
      path: c.path, before, content, read: mine.kind === 'file' ? mine : null, baseBefore: c.status === 'added' ? null : { mode: c.oldMode, oid: c.oldOid },
      after: deleted ? null : { mode: modeChange ?? before?.mode ?? c.newMode, oid },
      baseAfter: deleted ? null : { mode: modeChange ?? c.oldMode, oid: baseOut === out ? oid : blobOf(Buffer.from(baseOut.text, 'utf8'), algo, made, known) },
    });
  }
  const refuse = (message: string): LinesOutcome => ({ ok: false, applied: [], conflicts, problems, message });
  if (problems.length) return refuse(`Nothing was applied: ${problems[0]!.message}`);
  if (conflicts.length) {
    const files = [...new Set(conflicts.map((c) => c.path))];
    return refuse(`Nothing was applied: ${conflicts.length === 1 ? 'one hunk does' : `${conflicts.length} hunks do`} not fit your folder as it is now (${files.slice(0, 3).join(', ')}). Choose how to resolve ${conflicts.length === 1 ? 'it' : 'them'}.`);
  }
  if (applied.length === 0) return { ok: true, applied: [], conflicts, problems, message: 'No lines were chosen; nothing was applied.' };
  const files = recordAndWrite(copy, applied, made, await folders, algo, snap.tree, tools.now());
  return {
    ok: true, applied: files, conflicts: [], problems: [],
    message: `Applied the chosen lines of ${files.length} ${files.length === 1 ? 'file' : 'files'} to ${copy.meta.hostPath}${copy.meta.kind === 'git' ? ' as uncommitted changes' : ''}; the rest stays in the chat's copy.`,
  };
}

/**
 * Apply by hunk and by line: the chosen lines of the chat's changes, as a patch made with
 * policy/hunkPatch, put on the user's folder as it is now. git's own `git apply --cached` does the
 * applying, in Berth's tracking repository on a throwaway index read from a snapshot of the
 * folder: it never looks at a work tree (so no filter, attribute of the copy or the folder, hook
 * or configuration of the copy has any say: the repository, its info/attributes override and the
 * -c settings are Berth's, review/git.ts), and it applies a whole patch or nothing. Berth checks
 * first that every hunk fits without ambiguity (hunksFit); then the changed entries are written
 * into the folder by applyToFolder, all or nothing, never through a link, and the copy's base
 * takes the same patch, so what was not chosen stays a change still to apply.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { ApplyProblem, HunkConflict, LineSelection } from '../../../shared/review.js';
import { hunksFit, parseFilePatch, selectHunks, selectionPatch, selectsAll, type FilePatch } from '../policy/hunkPatch.js';
import { GITLINK_MODE, SYMLINK_MODE, touchedPaths, unsafePathReason, type RawChange } from '../policy/reviewPolicy.js';
import { readBlobs } from './blobBatch.js';
import { git, gitText } from './git.js';
import type { CopyTools } from './copyTools.js';
import type { ReviewCopy } from './reviewCopy.js';
import { overrideAttributes } from './trackAttributes.js';

export interface LinesOutcome {
  ok: boolean;
  applied: string[];
  conflicts: HunkConflict[];
  problems: ApplyProblem[];
  message: string;
}


/**
 * A tree: `tree` with `patch` applied by git (index only, in Berth's repository), or git's words
 * when it does not apply. `index`: an index file of Berth's that holds exactly `tree` (the user
 * snapshot's), copied instead of a read-tree: a git process less.
 */
export async function applyPatchToTree(copy: ReviewCopy, tree: string, patch: string, index?: string): Promise<{ tree: string } | { error: string }> {
  overrideAttributes(copy.trackDir);
  const scratch = path.join(copy.trackDir, `apply-${randomBytes(4).toString('hex')}`);
  const opts = { gitDir: copy.trackDir, indexFile: scratch };
  try {
    if (index) fs.copyFileSync(index, scratch);
    else await git(['read-tree', tree], opts);
    const res = await git(['apply', '--cached', '--whitespace=nowarn', '--recount', '-'], { ...opts, input: patch, okCodes: [1] });
    if (res.code !== 0) return { error: res.stderr.trim().split('\n').slice(-2).join(' ') };
    return { tree: await gitText(['write-tree'], opts) };
  } finally {
    fs.rmSync(scratch, { force: true });
  }
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

/** The copy and the user's folder, each taken into its own index of Berth's repository. */
export interface Taken {
  snap: { tree: string; large: string[] };
  userNow: { tree: string; large: string[]; index: string };
}

/** Takes the copy and the folder in at once (separate indexes of the same repository). */
export async function takeBoth(copy: ReviewCopy): Promise<Taken> {
  const [snap, userNow] = await Promise.all([copy.snapshot(), copy.userSnapshot()]);
  return { snap, userNow };
}

/**
 * Applies the chosen lines of `taken` (the snapshots the caller checked the version on: taken
 * once, not again here). Nothing is written unless every chosen hunk fits the folder now; the
 * conflicts are returned with both sides instead.
 */
export async function applyLines(copy: ReviewCopy, selections: readonly LineSelection[], tools: Pick<CopyTools, 'write' | 'now'>, taken: Taken): Promise<LinesOutcome> {
  const base = copy.meta.baseTree;
  const { snap, userNow } = taken;
  // The copy's changes, the diffs of the asked paths and the three sides of each, by three git
  // processes at once (one after the other they were a third of an apply's time, bench:review).
  // What is read for a path that turns out not to be a change is never used; a path that cannot
  // be one (outside the folder: git would stop on it) is not asked, and is refused below. A
  // folder still at the copy's base has the base's content: it is not read twice.
  const asked = [...new Set(selections.map((s) => s.path))].filter((p) => unsafePathReason(p) === null);
  const atBase = userNow.tree === base;
  const per = atBase ? 2 : 3;
  const [changes, patchText, sides] = await Promise.all([
    copy.diff(base, snap.tree),
    copy.patch(base, snap.tree, asked),
    readBlobs(copy, asked.flatMap((p) => [`${base}:${p}`, `${snap.tree}:${p}`, ...(atBase ? [] : [`${userNow.tree}:${p}`])])),
  ]);
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
  const patches: string[] = [];
  for (const { c, sel } of picked) {
    const text = texts.get(`diff --git a/${c.path} b/${c.path}`);
    const patch = text === undefined ? null : parseFilePatch(text);
    const i = asked.indexOf(c.path);
    const [baseBuf, newBuf, mineBuf] = [sides[per * i] ?? Buffer.alloc(0), sides[per * i + 1] ?? Buffer.alloc(0), sides[per * i + (atBase ? 0 : 2)] ?? null];
    const why = wholeOnly(c, patch) ?? (isUtf8(baseBuf) && isUtf8(newBuf) ? null : 'it is not UTF-8 text');
    if (why || !patch) {
      problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" can only be applied as a whole file: ${why}.` });
      continue;
    }
    if ((c.status === 'added' || c.status === 'deleted') && !selectsAll(patch, sel)) {
      problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" was ${c.status} by the chat: it is applied with all its lines or not at all.` });
      continue;
    }
    const selected = selectionPatch(patch, sel);
    if (selected === null) continue;
    const mine = userNow.large.includes(c.path) ? null : mineBuf;
    if ((mine === null) !== (c.status === 'added')) {
      const hunk = patch.hunks[0];
      conflicts.push({
        path: c.path, why: 'gone', mineStart: 1, base: hunk?.lines.filter((l) => l.kind !== '+').map((l) => l.text) ?? [],
        mine: mine === null ? [] : mine.toString('utf8').split('\n').slice(0, 3), chat: hunk?.lines.filter((l) => l.kind !== '-').map((l) => l.text) ?? [],
      });
      continue;
    }
    const fit = hunksFit(selectHunks(patch, sel), baseBuf.toString('utf8'), (mine ?? Buffer.alloc(0)).toString('utf8'));
    if (!fit.fits) {
      conflicts.push({
        path: c.path, why: fit.why, mineStart: fit.theirsStart, mine: fit.theirs,
        base: fit.hunk.lines.filter((l) => l.kind !== '+').map((l) => l.text), chat: fit.hunk.lines.filter((l) => l.kind !== '-').map((l) => l.text),
      });
      continue;
    }
    patches.push(selected);
  }
  const refuse = (message: string): LinesOutcome => ({ ok: false, applied: [], conflicts, problems, message });
  if (problems.length) return refuse(`Nothing was applied: ${problems[0]!.message}`);
  if (conflicts.length) {
    const files = [...new Set(conflicts.map((c) => c.path))];
    return refuse(`Nothing was applied: ${conflicts.length === 1 ? 'one hunk does' : `${conflicts.length} hunks do`} not fit your folder as it is now (${files.slice(0, 3).join(', ')}). Choose how to resolve ${conflicts.length === 1 ? 'it' : 'them'}.`);
  }
  if (patches.length === 0) return { ok: true, applied: [], conflicts, problems, message: 'No lines were chosen; nothing was applied.' };
  const patch = patches.join('');
  // The folder still as the copy's base (the usual case): one apply stands for both.
  const [userAfter, baseAfter] =
    atBase
      ? await applyPatchToTree(copy, userNow.tree, patch, userNow.index).then((t) => [t, t] as const)
      : await Promise.all([applyPatchToTree(copy, userNow.tree, patch, userNow.index), applyPatchToTree(copy, base, patch)]);
  if ('error' in userAfter) {
    return refuse(`Nothing was applied: git could not apply the chosen lines to your folder as it is now (${userAfter.error}). Reload the Changes panel and choose again.`);
  }
  if ('error' in baseAfter) throw new BerthError('review_failed', `The chosen lines do not apply to the copy's own base (${baseAfter.error}).`, { hint: 'Reload the Changes panel and choose again.' });
  const written = await copy.diff(userNow.tree, userAfter.tree);
  const madeDirs = await tools.write(written);
  const files = [...new Set(written.flatMap(touchedPaths))];
  copy.meta.lastApply = { before: base, after: baseAfter.tree, files, madeDirs, at: tools.now(), userBefore: userNow.tree, userAfter: userAfter.tree };
  copy.meta.baseTree = baseAfter.tree;
  copy.saveMeta();
  return {
    ok: true, applied: files, conflicts: [], problems: [],
    message: `Applied the chosen lines of ${files.length} ${files.length === 1 ? 'file' : 'files'} to ${copy.meta.hostPath}${copy.meta.kind === 'git' ? ' as uncommitted changes' : ''}; the rest stays in the chat's copy.`,
  };
}

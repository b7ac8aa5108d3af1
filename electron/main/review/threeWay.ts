/**
 * Files both the user and the chat changed since the copy's base: git merge-file (git's own
 * three-way merge) puts them together, in Berth's tracking repository with Berth's settings, on
 * temporary files Berth writes from blobs (never on a file of the copy or the folder). A clean
 * merge lets Refresh bring the user's side into the copy; a conflicting one is shown three ways
 * (policy/mergeRegions) and settled by the user's choices, applied to folder and copy alike.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { ApplyProblem, ConflictChoice, MergeSegment } from '../../../shared/review.js';
import { MERGE_LABELS, conflictCount, markerSizeFor, parseMerged, resolveSegments } from '../policy/mergeRegions.js';
import { SYMLINK_MODE, GITLINK_MODE, unsafePathReason, type RawChange } from '../policy/reviewPolicy.js';
import { git, gitText } from './git.js';
import type { ReviewCopy } from './reviewCopy.js';
import type { CopyTools } from './copyTools.js';

export interface Merged {
  segments: MergeSegment[];
  conflicts: number;
  /** The merged bytes when nothing conflicts. */
  clean: Buffer | null;
}

/** git merge-file of three texts (mine and the chat's against the base). */
export async function mergeTexts(copy: ReviewCopy, base: Buffer, mine: Buffer, chat: Buffer): Promise<Merged> {
  const dir = path.join(copy.trackDir, `merge-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  try {
    const files = { mine: path.join(dir, 'mine'), base: path.join(dir, 'base'), chat: path.join(dir, 'chat') };
    fs.writeFileSync(files.mine, mine);
    fs.writeFileSync(files.base, base);
    fs.writeFileSync(files.chat, chat);
    const size = markerSizeFor([mine.toString('utf8'), base.toString('utf8'), chat.toString('utf8')]);
    // The exit code is the number of conflicts (capped at 127); a negative one is an error.
    const res = await git(
      ['merge-file', '-p', '--diff3', `--marker-size=${size}`, '-L', MERGE_LABELS.mine, '-L', MERGE_LABELS.base, '-L', MERGE_LABELS.chat, files.mine, files.base, files.chat],
      { gitDir: copy.trackDir, cwd: dir, okCodes: Array.from({ length: 127 }, (_, i) => i + 1) },
    );
    const segments = parseMerged(res.stdout.toString('utf8'), size);
    const conflicts = conflictCount(segments);
    return { segments, conflicts, clean: res.code === 0 ? res.stdout : null };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function blobAt(copy: ReviewCopy, tree: string, p: string): Promise<{ buf: Buffer; mode: string } | null> {
  const line = await gitText(['ls-tree', '-z', tree, '--', `:(literal)${p}`], { gitDir: copy.trackDir });
  const m = /^(\d{6}) blob ([0-9a-f]+)\t/.exec(line);
  return m ? { buf: await copy.blob(m[2] as string), mode: m[1] as string } : null;
}

async function storeBlob(copy: ReviewCopy, content: Buffer): Promise<string> {
  // --stdin without --path: no attribute or filter is consulted.
  return gitText(['hash-object', '-w', '--stdin'], { gitDir: copy.trackDir, input: content });
}

function entry(p: string, mode: string, oid: string): RawChange {
  return { status: 'modified', path: p, oldPath: null, oldMode: mode, newMode: mode, oldOid: '', newOid: oid };
}

/** The three sides of one file now: base, the user's folder, the chat's copy. */
async function sides(copy: ReviewCopy, p: string) {
  const unsafe = unsafePathReason(p);
  if (unsafe) throw new BerthError('invalid_request', `"${p}" cannot be resolved: ${unsafe}`, { hint: 'Pick a file from the Changes panel.' });
  const snap = await copy.snapshot();
  const user = await copy.userSnapshot();
  const [base, mine, chat] = await Promise.all([blobAt(copy, copy.meta.baseTree, p), blobAt(copy, user.tree, p), blobAt(copy, snap.tree, p)]);
  if (!mine || !chat || [mine.mode, chat.mode].some((m) => m === SYMLINK_MODE || m === GITLINK_MODE)) {
    throw new BerthError('invalid_request', `"${p}" is not a file in both your folder and the chat's copy, so there are no lines to merge.`, {
      hint: 'Apply the chat’s version of the whole file, or discard it.',
    });
  }
  return { snap, user, base: base?.buf ?? Buffer.alloc(0), mine, chat };
}

/** The file three ways, for the panel. */
export async function conflictView(copy: ReviewCopy, p: string): Promise<{ path: string; segments: MergeSegment[]; conflicts: number }> {
  const s = await sides(copy, p);
  const merged = await mergeTexts(copy, s.base, s.mine.buf, s.chat.buf);
  return { path: p, segments: merged.segments, conflicts: merged.conflicts };
}

/**
 * Settles a file with one choice per conflict and applies it: the user's folder gets the result
 * (undoable like any apply), then the copy (written in place, link-safe, as Undo writes it) and its base, so the file
 * is the same on all three sides and no longer a change.
 */
export async function resolveConflict(copy: ReviewCopy, tools: CopyTools, p: string, choices: readonly ConflictChoice[]) {
  const s = await sides(copy, p);
  const merged = await mergeTexts(copy, s.base, s.mine.buf, s.chat.buf);
  const resolved = resolveSegments(merged.segments, choices);
  if ('problem' in resolved) {
    return { ok: false, applied: [], problems: [{ path: p, kind: 'conflict', message: `${resolved.problem} Reload the conflict and choose again.` }] as ApplyProblem[], message: `Nothing was applied: ${resolved.problem}` };
  }
  const endsNewline = s.chat.buf.at(-1) === 0x0a || s.mine.buf.at(-1) === 0x0a || resolved.lines.length === 0;
  const content = Buffer.from(resolved.lines.join('\n') + (endsNewline && resolved.lines.length ? '\n' : ''), 'utf8');
  const oid = await storeBlob(copy, content);
  const mode = s.mine.mode;
  const userAfter = await copy.compose(s.user.tree, '', [entry(p, mode, oid)]);
  const madeDirs = await tools.write(await copy.diff(s.user.tree, userAfter));
  const before = copy.meta.baseTree;
  const baseAfter = await copy.compose(before, '', [entry(p, mode, oid)]);
  const copyAfter = await copy.compose(s.snap.tree, '', [entry(p, mode, oid)]);
  await tools.rewriting(() => copy.resetWorkTo(copyAfter));
  copy.meta.baseTree = baseAfter;
  copy.meta.lastApply = { before, after: baseAfter, files: [p], madeDirs, at: tools.now(), userBefore: s.user.tree, userAfter };
  copy.saveMeta();
  return { ok: true, applied: [p], problems: [] as ApplyProblem[], message: `Resolved "${p}" and applied it to ${copy.meta.hostPath}; the chat's copy holds the same now.` };
}

/**
 * Refresh's part for files both sides modified: each that git merges cleanly gets the merged
 * text in the copy and the user's version as its base, so the next apply writes only the chat's
 * part over the user's. The others stay as they are, to be resolved three ways.
 */
export async function mergeBothChanged(copy: ReviewCopy, both: readonly RawChange[], chatTree: string): Promise<{ copyEntries: RawChange[]; baseEntries: RawChange[]; conflicting: string[] }> {
  const copyEntries: RawChange[] = [];
  const baseEntries: RawChange[] = [];
  const conflicting: string[] = [];
  for (const u of both) {
    const chat = u.status === 'modified' && u.newMode !== SYMLINK_MODE ? await blobAt(copy, chatTree, u.path) : null;
    if (!chat || chat.mode === SYMLINK_MODE || chat.mode === GITLINK_MODE) {
      conflicting.push(u.path);
      continue;
    }
    // A binary file is one git merge-file refuses: it stays a conflict.
    const merged = await mergeTexts(copy, await copy.blob(u.oldOid), await copy.blob(u.newOid), chat.buf).catch(() => null);
    if (!merged?.clean) {
      conflicting.push(u.path);
      continue;
    }
    copyEntries.push(entry(u.path, chat.mode, await storeBlob(copy, merged.clean)));
    baseEntries.push(u);
  }
  return { copyEntries, baseEntries, conflicting };
}

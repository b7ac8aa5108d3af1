/** What an apply of a Review copy's changes would do to the user's folder, decided before anything is written. */
import type { ApplyProblem } from '../../../shared/review.js';
import { SYMLINK_MODE, applyProblems, touchedPaths, type ApplyCandidate, type RawChange } from '../policy/reviewPolicy.js';
import type { FolderWrite } from './applyToFolder.js';
import type { ReviewCopy } from './reviewCopy.js';
import { readBlobs } from './blobBatch.js';

/** What writing `changes` (tree to tree, from the copy's objects) into the user's folder takes. */
export async function folderWrites(copy: ReviewCopy, changes: readonly RawChange[]): Promise<FolderWrite[]> {
  const writes: FolderWrite[] = [];
  // Every blob in one git process (blobBatch.ts): one process per file cost most of an apply's time.
  const kept = changes.filter((c) => c.status !== 'deleted');
  const blobs = new Map(kept.map((c, i) => [c, i]));
  const contents = await readBlobs(copy, kept.map((c) => c.newOid));
  const content = async (c: RawChange) => contents[blobs.get(c) as number] ?? copy.blob(c.newOid);
  for (const c of changes) {
    if (c.oldPath) writes.push({ kind: 'delete', path: c.oldPath });
    if (c.status === 'deleted') writes.push({ kind: 'delete', path: c.path });
    else if (c.newMode === SYMLINK_MODE) writes.push({ kind: 'symlink', path: c.path, target: (await content(c)).toString('utf8') });
    else writes.push({ kind: 'file', path: c.path, content: await content(c), executable: c.newMode === '100755' });
  }
  return writes;
}

/**
 * Why these changes may not be applied: files the user changed too (policy/reviewPolicy), and
 * paths that would pass through a link in the user's folder. Empty when they may.
 */
export async function applyProblemsFor(copy: ReviewCopy, chosen: readonly RawChange[], largeChosen: readonly string[]): Promise<ApplyProblem[]> {
  const candidates: ApplyCandidate[] = [];
  for (const c of chosen) {
    const linkTarget = c.newMode === SYMLINK_MODE && c.status !== 'deleted' ? (await copy.blob(c.newOid)).toString('utf8') : null;
    candidates.push({ ...c, tooLarge: false, linkTarget });
  }
  for (const p of largeChosen) {
    candidates.push({ status: 'modified', path: p, oldPath: null, oldMode: '100644', newMode: '100644', oldOid: '', newOid: '', tooLarge: true, linkTarget: null });
  }
  const userNow = await copy.userSnapshot();
  const userChanged = new Set([...(await copy.diff(copy.meta.baseTree, userNow.tree)).flatMap(touchedPaths), ...userNow.large]);
  const problems: ApplyProblem[] = applyProblems(candidates, userChanged);
  const { leadingLinkProblem } = await import('./applyToFolder.js');
  if (problems.length === 0) {
    for (const c of candidates) {
      for (const p of touchedPaths(c)) {
        const why = leadingLinkProblem(copy.meta.hostPath, p);
        if (why) problems.push({ path: p, kind: 'unsafe_path', message: why });
      }
    }
  }
  return problems;
}

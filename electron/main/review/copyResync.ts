/** Discard and Refresh of a Review copy: what they do to the copy (ReviewService runs them in the chat's queue, then recounts). */
import { touchedPaths } from '../policy/reviewPolicy.js';
import type { ReviewCopy } from './reviewCopy.js';
import { mergeBothChanged } from './threeWay.js';

/** Discard: the copy matches the user's folder again (the chat's work in it is gone). */
export async function discardCopy(copy: ReviewCopy) {
  const snap = await copy.snapshot();
  const discarded = (await copy.diff(copy.meta.baseTree, snap.tree)).length + snap.large.length;
  const userNow = await copy.userSnapshot();
  copy.removeFiles(snap.large);
  await copy.resetWorkTo(userNow.tree);
  copy.meta.baseTree = userNow.tree;
  // The chat's work is gone: an apply of it is the user's own now, not something to take back.
  copy.meta.lastApply = null;
  copy.saveMeta();
  return { discarded, message: `Discarded ${discarded} changed ${discarded === 1 ? 'file' : 'files'}; the copy matches your folder again.` };
}

/**
 * Refresh: the user's changes since the copy was made come into it; files both sides changed are
 * merged by git merge-file where they merge cleanly, the rest stay the chat's until resolved.
 */
export async function refreshCopy(copy: ReviewCopy) {
  const snap = await copy.snapshot();
  const chatChanged = new Set((await copy.diff(copy.meta.baseTree, snap.tree)).flatMap(touchedPaths));
  const userNow = await copy.userSnapshot();
  const userChanges = await copy.diff(copy.meta.baseTree, userNow.tree);
  const both = userChanges.filter((c) => touchedPaths(c).some((p) => chatChanged.has(p)));
  const take = userChanges.filter((c) => !both.includes(c));
  // Files both sides changed: git merge-file puts clean ones together (threeWay.ts).
  const merge = await mergeBothChanged(copy, both, snap.tree);
  if (take.length > 0 || merge.copyEntries.length > 0) {
    const next = await copy.compose(snap.tree, userNow.tree, [...take, ...merge.copyEntries]);
    await copy.resetWorkTo(next);
    copy.meta.baseTree = await copy.compose(copy.meta.baseTree, userNow.tree, [...take, ...merge.baseEntries]);
    copy.saveMeta();
  }
  const updated = take.map((c) => c.path);
  const merged = merge.copyEntries.map((c) => c.path);
  const conflictPaths = merge.conflicting;
  return {
    updated, merged, conflicts: conflictPaths,
    message: `Brought in ${updated.length} ${updated.length === 1 ? 'file' : 'files'} from your folder.` +
      (merged.length ? ` Merged your changes into the chat's in ${merged.length} ${merged.length === 1 ? 'file' : 'files'}: ${merged.slice(0, 5).join(', ')}.` : '') +
      (conflictPaths.length ? ` ${conflictPaths.length} changed in the same lines in your folder and in the chat; the chat's versions are kept until you resolve them in the Changes panel: ${conflictPaths.slice(0, 5).join(', ')}.` : ''),
  };
}

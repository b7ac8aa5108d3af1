/**
 * Undo of the last apply: the applied files in the user's folder go back to what they were, and
 * the copy's base with them; refused (nothing written) for a file the user changed since.
 */
import type { ApplyProblem } from '../../../shared/review.js';
import { BerthError } from '../../../shared/errors.js';
import { touchedPaths } from '../policy/reviewPolicy.js';
import { applyWrites, removeEmptyFolders } from './applyToFolder.js';
import { folderWrites } from './applyPlan.js';
import type { ReviewCopy } from './reviewCopy.js';

export async function undoLastApply(copy: ReviewCopy) {
  const last = copy.meta.lastApply;
  if (!last || last.after !== copy.meta.baseTree) {
    throw new BerthError('invalid_request', `There is no apply to undo for "${copy.meta.hostPath}": nothing was applied since the copy was made, refreshed or discarded, or it was undone already.`, {
      hint: 'Reload the Changes panel.',
    });
  }
  const applied = new Set(last.files);
  const userNow = await copy.userSnapshot();
  // What the folder held after the apply: the base after it, or (chosen lines) the folder's own tree then.
  const folderAfter = last.userAfter ?? last.after;
  const changedSince = new Set([...(await copy.diff(folderAfter, userNow.tree)).flatMap(touchedPaths), ...userNow.large]);
  const problems: ApplyProblem[] = last.files
    .filter((p) => changedSince.has(p))
    .map((p) => ({ path: p, kind: 'conflict' as const, message: `"${p}" changed in your folder after the apply; Berth leaves your version as it is.` }));
  if (problems.length > 0) {
    return {
      ok: false, restored: [], problems,
      message: `Nothing was undone: ${problems.length === 1 ? 'one applied file' : `${problems.length} applied files`} changed in your folder since (${problems.slice(0, 3).map((p) => p.path).join(', ')}). Undo those edits yourself, or keep the apply.`,
    };
  }
  // From the base after the apply back to the one before: exactly the applied paths change.
  const back = (await copy.diff(folderAfter, last.userBefore ?? last.before)).filter((c) => touchedPaths(c).some((p) => applied.has(p)));
  applyWrites(copy.meta.hostPath, await folderWrites(copy, back));
  removeEmptyFolders(copy.meta.hostPath, last.madeDirs);
  copy.meta.baseTree = last.before;
  copy.meta.lastApply = null;
  copy.saveMeta();
  const restored = [...applied].sort();
  return {
    ok: true, restored, problems: [],
    message:
      restored.length === 1
        ? `Undid the apply: one file in ${copy.meta.hostPath} is back as it was.`
        : `Undid the apply: ${restored.length} files in ${copy.meta.hostPath} are back as they were.`,
  };
}

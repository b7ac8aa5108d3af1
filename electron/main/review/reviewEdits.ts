/**
 * Review's finer tools on a chat's copy: apply chosen lines (partialApply), a conflicting file
 * three ways and its resolution (threeWay). Each runs in the chat's review queue through
 * ReviewService.onCopy, like every other Review operation.
 */
import { BerthError } from '../../../shared/errors.js';
import type { ConflictChoice, LineSelection } from '../../../shared/review.js';
import { applyLines } from './partialApply.js';
import type { ReviewService } from './reviewService.js';
import { conflictView, resolveConflict } from './threeWay.js';

export class ReviewEdits {
  constructor(private readonly review: ReviewService) {}

  applyLines(chatId: string, hostPath: string, version: string, files: readonly LineSelection[]) {
    return this.review.onCopy(chatId, hostPath, async (copy, tools) => {
      // One snapshot of the copy, for the version check and the apply both (the folder's files are read as they are when applied).
      const snap = await copy.snapshot();
      // Applying lines writes the folder and the copy's base, never the copy's files.
      tools.readOnly(snap);
      if ((await tools.version(snap)) !== version) {
        throw new BerthError('invalid_request', `The chat's copy of "${hostPath}" changed since these lines were chosen, so Berth applied nothing.`, {
          hint: 'Look at the changes again and choose the lines anew.',
        });
      }
      return applyLines(copy, files, tools, snap);
    });
  }

  conflict(chatId: string, hostPath: string, path: string) {
    return this.review.onCopy(chatId, hostPath, (copy) => conflictView(copy, path));
  }

  resolve(chatId: string, hostPath: string, path: string, choices: readonly ConflictChoice[]) {
    return this.review.onCopy(chatId, hostPath, (copy, tools) => resolveConflict(copy, tools, path, choices));
  }
}

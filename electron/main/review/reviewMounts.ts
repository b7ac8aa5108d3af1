/** The check, right before a container is created or started, that a Review-mode copy is what Berth made. */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { isSameOrInside } from '../policy/sensitivePaths.js';

/** A copy is a real folder named work/ inside <data dir>/review/<id>/, reached without links. */
export function recheckReviewCopy(source: string, dataDir: string): void {
  const root = path.join(path.resolve(dataDir), 'review');
  let real: string | null;
  try {
    real = fs.realpathSync.native(source);
  } catch {
    real = null;
  }
  const ok =
    real !== null &&
    real === source &&
    path.basename(real) === 'work' &&
    path.dirname(path.dirname(real)) === fs.realpathSync.native(root) &&
    isSameOrInside(real, root) &&
    fs.lstatSync(real).isDirectory();
  if (!ok) {
    throw new BerthError('workspace_changed', `The chat's copy at "${source}" is missing or was replaced, so Berth will not mount it.`, {
      hint: 'Detach the folder and attach it again in Review mode.',
    });
  }
}

/** The check, right before a container is created or started, that a Review-mode copy is what Berth made. */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { FolderIdentity } from '../policy/mountProof.js';
import { isSameOrInside } from '../policy/sensitivePaths.js';
import { isSlotFolder } from './slotFolders.js';

/**
 * A copy is a real folder named work/ inside <data dir>/review/<id>/, or the chat's slot folder
 * it fills, or its own folder in a slot that holds several (review/slotFolders.ts), reached
 * without links.
 */
export function recheckReviewCopy(source: string, dataDir: string): FolderIdentity {
  const root = path.join(path.resolve(dataDir), 'review');
  let real: string | null;
  try {
    real = fs.realpathSync.native(source);
  } catch {
    real = null;
  }
  const inReview = (dir: string) =>
    path.basename(dir) === 'work' && path.dirname(path.dirname(dir)) === fs.realpathSync.native(root) && isSameOrInside(dir, root);
  const ok =
    real !== null &&
    real === source &&
    (inReview(real) || isSlotFolder(real, dataDir) || (isSlotFolder(path.dirname(real), dataDir) && !path.basename(real).startsWith('.'))) &&
    fs.lstatSync(real).isDirectory();
  if (!ok) {
    throw new BerthError('workspace_changed', `The chat's copy at "${source}" is missing or was replaced, so Berth will not mount it.`, {
      hint: 'Detach the folder and attach it again in Review mode.',
    });
  }
  // What the proof after the start compares with (policy/mountProof.ts).
  const st = fs.statSync(source, { bigint: true });
  return { dev: String(st.dev), ino: String(st.ino) };
}

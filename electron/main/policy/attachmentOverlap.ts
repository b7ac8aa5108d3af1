/**
 * Whether a folder may be attached next to the folders already mounted anywhere. Pure.
 * Docker resolves a bind source when it starts a container, after Berth's last check: a
 * sandbox that can write a folder's parent could swap the folder for a link in that moment.
 * So a folder nested in another mounted folder is allowed only when the outer one is
 * mounted read-only everywhere. The same folder in two chats is fine: neither can touch
 * its parent.
 */
import { isSameOrInside } from './sensitivePaths.js';

export interface MountedFolder {
  hostPath: string;
  readOnly: boolean;
  /** Who mounts it, for the message: a chat title or a profile name. */
  owner: string;
}

export function overlapProblem(candidate: { hostPath: string; readOnly: boolean }, mounted: readonly MountedFolder[]): string | null {
  for (const other of mounted) {
    if (other.hostPath === candidate.hostPath) continue;
    if (isSameOrInside(candidate.hostPath, other.hostPath) && !other.readOnly) {
      return `it is inside ${other.hostPath}, which ${other.owner} can change, so it could be swapped for a link to anywhere on this computer. Attach ${other.hostPath} read-only there, or attach that same folder here.`;
    }
    if (isSameOrInside(other.hostPath, candidate.hostPath) && !candidate.readOnly) {
      return `it contains ${other.hostPath}, which ${other.owner} uses; with write access this chat could swap that folder for a link. Attach it read-only, or attach ${other.hostPath} itself.`;
    }
  }
  return null;
}

/** Who can write `hostPath` or a folder around or inside it directly (a sentence's subject), or null: what Berth must not trust there. */
export function directWriterOf(writable: readonly MountedFolder[], hostPath: string): string | null {
  const hit = writable.find((w) => !w.readOnly && (isSameOrInside(hostPath, w.hostPath) || isSameOrInside(w.hostPath, hostPath)));
  return hit ? hit.owner : null;
}

/**
 * Who the sandbox runs as so that its read-write folders are writable, and what to tell the
 * user when no allowed user can write one. Pure: the caller stats the folders.
 *
 * Only when Berth runs as root does this choose: otherwise the sandbox already runs as the host
 * user (policy/sandboxUser), who owns what they attach. As root, the configured sandbox user
 * (1000:1000 by default) cannot write a folder another user owns, so the sandbox runs as that
 * folder's owner instead, when every read-write folder has the same owner and it is not root.
 * Never root: a root-owned folder (or read-write folders of different owners) keeps the
 * configured user, and each folder it cannot write gets a warning saying what to do.
 * A chat with Review-mode copies keeps the configured user as well: its copies and home are
 * Berth's and belong to that user.
 */
import { sandboxUserFor, type HostUser } from './sandboxUser.js';

export interface FolderOwner {
  path: string;
  uid: number;
  gid: number;
  /** The folder's permission bits (stat mode & 0o777). */
  mode: number;
}

export interface WritableDecision {
  /** uid:gid for the container; never 0 in either place. */
  user: string;
  /** Per read-write folder the sandbox cannot write as `user`: what happened and what to do. */
  warnings: Map<string, string>;
}

function ids(user: string): [number, number] {
  const [uid, gid] = user.split(':').map(Number);
  return [uid as number, gid as number];
}

/** Whether uid:gid may write the folder by its mode bits (ACLs aside). */
export function canWrite(folder: FolderOwner, uid: number, gid: number): boolean {
  if (folder.uid === uid) return (folder.mode & 0o200) !== 0;
  if (folder.gid === gid) return (folder.mode & 0o020) !== 0;
  return (folder.mode & 0o002) !== 0;
}

export function decideWritable(host: HostUser, configured: string, readWrite: readonly FolderOwner[], hasReviewCopies: boolean): WritableDecision {
  const base = sandboxUserFor(host, configured);
  const asRoot = host.platform === 'linux' && host.uid === 0;
  let user = base;
  if (asRoot && !hasReviewCopies && readWrite.length > 0) {
    const owners = new Set(readWrite.map((f) => f.uid));
    const only = readWrite[0] as FolderOwner;
    if (owners.size === 1 && only.uid > 0) {
      const [, baseGid] = ids(base);
      user = `${only.uid}:${only.gid > 0 ? only.gid : baseGid}`;
    }
  }
  const [uid, gid] = ids(user);
  const warnings = new Map<string, string>();
  if (!asRoot) return { user, warnings };
  const owners = [...new Set(readWrite.map((f) => f.uid))];
  for (const folder of readWrite) {
    if (canWrite(folder, uid, gid)) continue;
    let why: string;
    if (folder.uid === 0) why = `it belongs to root, and the sandbox never runs as root (it runs as uid ${uid})`;
    else if (hasReviewCopies) why = `it belongs to uid ${folder.uid}, and a chat with Review-mode folders runs its sandbox as uid ${uid}`;
    else if (owners.length > 1) why = `this chat's read-write folders belong to different users (uids ${owners.join(', ')}), and the sandbox runs as one (uid ${uid})`;
    else why = `its permissions (${folder.mode.toString(8).padStart(3, '0')}) do not let its owner, uid ${folder.uid}, write`;
    warnings.set(
      folder.path,
      `The sandbox cannot write to this folder: ${why}. Attach it in Review mode (changes come back when you apply them) or Read-only, ` +
        `or give it to the sandbox user on the host (for example \`chown -R ${uid}:${gid} ${folder.path}\`) and restart the sandbox.`,
    );
  }
  return { user, warnings };
}

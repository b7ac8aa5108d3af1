/**
 * Proof that each bind in a started container is the folder Berth checked. Docker resolves a
 * bind source again inside every start, so a folder swapped for a symlink in the instant
 * after Berth's last check would be mounted in its place while `docker inspect` still shows
 * the checked path. The device and inode a mount point shows inside the container are those
 * of the folder actually mounted; Berth compares them with the ones it recorded at the check,
 * before anything runs in the container. Pure: builds the command and judges its output.
 */

/** A folder's identity on the host: its device and inode, as decimal strings (they may pass 2^53). */
export interface FolderIdentity {
  dev: string;
  ino: string;
}

export interface ExpectedMount extends FolderIdentity {
  /** The host folder, for the message. */
  source: string;
  /** Where it is mounted in the container. */
  target: string;
}

/** Prints `<dev> <ino>` for each target, one line each, in order: GNU coreutils and busybox both speak this. */
export function mountProofCommand(mounts: readonly ExpectedMount[]): string[] {
  return ['stat', '-c', '%d %i', ...mounts.map((m) => m.target)];
}

export type MountProofResult =
  /** Every bind is the folder checked. */
  | { ok: true; proven: true }
  /**
   * The control (Berth's own home folder for the chat, which nothing but Berth can swap) shows
   * other numbers too: the engine sees this computer's files through a VM or from elsewhere
   * (Docker Desktop, a remote engine), so its numbers cannot be compared with ours.
   */
  | { ok: true; proven: false }
  /** A bind is another folder than the one checked. */
  | { ok: false; kind: 'swapped'; mount: ExpectedMount }
  /** The container could not say (no stat in the image, or it failed). */
  | { ok: false; kind: 'unproven'; detail: string };

/** Judges the output of mountProofCommand([control, ...mounts]). */
export function judgeMountProof(control: ExpectedMount, mounts: readonly ExpectedMount[], exitCode: number, output: string): MountProofResult {
  const all = [control, ...mounts];
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (exitCode !== 0 || lines.length !== all.length) {
    return { ok: false, kind: 'unproven', detail: lines.slice(0, 3).join(' / ').slice(0, 300) || `exit code ${exitCode}` };
  }
  const seen: FolderIdentity[] = [];
  for (const line of lines) {
    const match = /^(\d+) (\d+)$/.exec(line);
    if (!match) return { ok: false, kind: 'unproven', detail: line.slice(0, 300) };
    seen.push({ dev: match[1] as string, ino: match[2] as string });
  }
  const same = (a: FolderIdentity, b: FolderIdentity) => a.dev === b.dev && a.ino === b.ino;
  if (!same(seen[0] as FolderIdentity, control)) return { ok: true, proven: false };
  for (const [i, m] of mounts.entries()) {
    if (!same(seen[i + 1] as FolderIdentity, m)) return { ok: false, kind: 'swapped', mount: m };
  }
  return { ok: true, proven: true };
}

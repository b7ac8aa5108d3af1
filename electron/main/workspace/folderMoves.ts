/**
 * What a chat's running shells are told when its folders move inside the container it keeps:
 * a pooled chat's Review-mode copies share its slot (review/slotFolders.ts arrangeSlot), so a
 * second one moves the first from /workspace to /workspace/<name>, and detaching lays it back.
 * Nothing is recreated, so the shells and what runs in them are kept (the attach dialog asks
 * only before a recreate); but a shell's `pwd` still names where its folder was: a shell at the
 * top now sees the folders instead of the files, one below it follows the files under its old
 * name. Restarting the shell would fix its path and kill what runs in it without asking, so it
 * is kept and told once where its folder is now, with the `cd` that gets it there.
 */

export interface FolderPlace {
  hostPath: string;
  containerPath: string | null;
}

export interface FolderMoves {
  moved: Array<{ hostPath: string; from: string; to: string }>;
  /** Detached from a container that keeps running: their folders there are gone. */
  gone: Array<{ hostPath: string; was: string }>;
}

/** How the chat's folders moved in its container between two layouts (the same container). */
export function folderMoves(before: readonly FolderPlace[], after: readonly FolderPlace[]): FolderMoves {
  const was = new Map(before.map((f) => [f.hostPath, f.containerPath]));
  const now = new Set(after.map((f) => f.hostPath));
  const moved = after.flatMap((f) => {
    const from = was.get(f.hostPath);
    return from && f.containerPath && from !== f.containerPath ? [{ hostPath: f.hostPath, from, to: f.containerPath }] : [];
  });
  const gone = before.flatMap((f) => (!now.has(f.hostPath) && f.containerPath ? [{ hostPath: f.hostPath, was: f.containerPath }] : []));
  return { moved, gone };
}

/** The one line a kept shell gets, or null when nothing it could be in moved. */
export function folderMoveNote({ moved, gone }: FolderMoves): string | null {
  // Something detached with nothing else moving: only a shell in that folder notices, and the folder list says it is gone.
  if (moved.length === 0) return null;
  const parts = [
    ...moved.map((m) => `"${printable(m.hostPath)}" is now at ${m.to} (it was at ${m.from})`),
    ...gone.map((g) => `"${printable(g.hostPath)}" was detached (${g.was} is gone)`),
  ];
  const cds = moved.map((m) => `cd ${m.to}`).join(' or ');
  return `The chat's folders changed in its running sandbox: ${parts.join('; ')}. This shell and what runs in it were kept; to work in the folder again: ${cds}`;
}

/**
 * The chat's first folder arrived in the container it keeps (a pooled chat's slot took the copy):
 * its shells started in the home, as a chat without a folder's do. One with nothing running in
 * it starts again in the folder (`restart`, said in it, as after a recreate); one running
 * something is kept and told (`kept`): nothing is stopped without the attach dialog asking, and
 * it asks only before a recreate. Null when the chat had a folder before (folderMoveNote).
 */
export function firstFolderNotes(before: readonly FolderPlace[], after: readonly FolderPlace[]): { restart: string; kept: string } | null {
  const first = after[0];
  if (before.some((f) => f.containerPath) || after.length !== 1 || !first?.containerPath) return null;
  const where = `"${printable(first.hostPath)}" is at ${first.containerPath}`;
  return {
    restart: `The chat’s folders changed: ${where} in its running sandbox, and this terminal started again there.`,
    kept: `The chat's folders changed in its running sandbox: ${where}. This shell and what runs in it were kept; to work in the folder: cd ${first.containerPath}`,
  };
}

/** A host path as the terminal shows it: a folder's name cannot send the screen control sequences. */
function printable(hostPath: string): string {
  // eslint-disable-next-line no-control-regex
  return hostPath.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

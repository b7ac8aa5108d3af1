/**
 * Who owns what Apply writes into the user's folder. Apply never rewrites a file in place (a
 * temporary file is renamed over it, so a failure half-way loses nothing), and a new file
 * belongs to whoever made it: Berth, root in its documented set-up. So each written entry is
 * given its owner explicitly: the owner of the file it replaces, or, for a new one, the owner of
 * the folder it is made in, as a file the user made there would have.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Owner {
  uid: number;
  gid: number;
}

/** The owner what is written at `target` should have: that of `existing` (the entry there, lstat), or of the folder for a new one. */
export function ownerFor(target: string, existing: fs.Stats | null): Owner {
  const from = existing ?? fs.lstatSync(path.dirname(target));
  return { uid: from.uid, gid: from.gid };
}

/**
 * Gives an entry Berth just made (`made`: its owner now) to `owner` through `chown`. For a new
 * entry a refusal (Berth is not root, and the folder is someone else's) leaves it Berth's, as
 * any program's file; a file that replaces one of another owner is refused instead, with `rel`
 * named, so Apply changes nothing rather than take the file from its owner.
 */
export function giveTo(chown: (uid: number, gid: number) => void, made: Owner, owner: Owner, replacing: boolean, rel: string): void {
  if (made.uid === owner.uid && made.gid === owner.gid) return;
  try {
    chown(owner.uid, owner.gid);
  } catch (error) {
    if (!replacing) return;
    throw new Error(
      `"${rel}" in your folder belongs to uid ${owner.uid} (group ${owner.gid}) and Berth, running as uid ${process.getuid?.()}, cannot keep that owner on its new version (${(error as NodeJS.ErrnoException).code ?? 'refused'}).`,
      { cause: error },
    );
  }
}

/** What Review's parts in modules of their own get with a copy (ReviewService.onCopy). */
import type { RawChange } from '../policy/reviewPolicy.js';

export interface CopyTools {
  /** The copy's version now (CopyChanges.version), or as `snap` (a snapshot just taken) has it. */
  version: (snap?: { tree: string; large: string[] }) => Promise<string>;
  /**
   * Says the work only reads the copy and took it as `snap`: the count after the work is made from
   * that snapshot (a moment old, like any picture of a copy the sandbox may write), not a new one.
   */
  readOnly: (snap: { tree: string; large: string[] }) => void;
  /** Writes changes (tree to tree, from the copy's objects) into the user's folder, all or nothing; returns the folders made. */
  write: (changes: readonly RawChange[]) => Promise<string[]>;
  /** Runs a write into the chat's copy the way Undo and Restore do (in place, link-safe; a remote sandbox starts again). */
  rewriting: <T>(write: () => Promise<T>) => Promise<T>;
  now: () => number;
}

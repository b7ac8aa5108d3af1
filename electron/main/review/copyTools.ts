/** What Review's parts in modules of their own get with a copy (ReviewService.onCopy). */
import type { RawChange } from '../policy/reviewPolicy.js';

export interface CopyTools {
  /** The copy's version now (CopyChanges.version). */
  version: () => Promise<string>;
  /** Writes changes (tree to tree, from the copy's objects) into the user's folder, all or nothing; returns the folders made. */
  write: (changes: readonly RawChange[]) => Promise<string[]>;
  stopSandbox: () => Promise<void>;
  now: () => number;
}

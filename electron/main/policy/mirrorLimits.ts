/**
 * How much of a remote sandbox's Review copy a mirror-back brings to this computer, entry by
 * entry as the engine's archive streams it. A file the sandbox made for nothing (`truncate -s
 * 3G`: no blocks on its side) arrives as zeros, so the archive's sizes, not the sandbox's disk,
 * say what it would cost here. Review's limits for a local copy hold: a file over the per-file
 * cap is listed as too large (never written here), more entries than a copy may hold stop the
 * stream. No I/O.
 */
import { REVIEW_LIMITS } from '../../../shared/review.js';

export interface MirrorLimits {
  /** Review's per-file cap: a file above it is listed as too large, as in a local copy. */
  maxFileBytes: number;
  /** Review's per-copy cap on entries (files, folders, links). */
  maxEntries: number;
  /**
   * The most a mirror-back reads from the archive, written here or skipped. Review has no byte
   * cap of its own for a copy (a local copy is the user's folder again); a remote copy needs one,
   * since every entry is read each time and one under the per-file cap is written here. Measured
   * on this machine through ssh:// to 127.0.0.1 (remoteMirrorCap.test.ts): reading past a 3 GiB
   * sparse file and a 100 MB one without writing them took 34-42 s a mirror-back, so 4 GiB keeps
   * a Changes panel's wait under a minute and still mirrors the files after such a file.
   */
  maxStreamBytes: number;
}

export const MIRROR_LIMITS: MirrorLimits = {
  maxFileBytes: REVIEW_LIMITS.maxTrackedFileBytes,
  maxEntries: REVIEW_LIMITS.maxCopyFiles,
  maxStreamBytes: 4 * 1024 * 1024 * 1024,
};

/** What the mirror-back has read so far. */
export interface MirrorCount {
  entries: number;
  bytes: number;
}

/**
 * One archive entry: `take` (read it; write it if it changed), `too_large` (list it, skip its
 * bytes), or `stop` (destroy the stream here: reading on would pass a per-copy cap). A
 * too-large entry whose bytes would pass the stream cap stops the stream as well: skipping a
 * 1 TiB entry means reading 1 TiB.
 */
export function mirrorVerdict(
  count: MirrorCount,
  entry: { type: string; size: number },
  limits: MirrorLimits = MIRROR_LIMITS,
): { verdict: 'take' | 'too_large' | 'stop'; tooLarge: boolean } {
  const size = entry.type === 'file' ? Math.max(0, entry.size) : 0;
  const tooLarge = size > limits.maxFileBytes;
  if (count.entries + 1 > limits.maxEntries || count.bytes + size > limits.maxStreamBytes) return { verdict: 'stop', tooLarge };
  return { verdict: tooLarge ? 'too_large' : 'take', tooLarge };
}

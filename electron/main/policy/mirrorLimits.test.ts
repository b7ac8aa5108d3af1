import { describe, expect, it } from 'vitest';
import { REVIEW_LIMITS } from '../../../shared/review.js';
import { MIRROR_LIMITS, mirrorVerdict } from './mirrorLimits.js';

const limits = { maxFileBytes: 100, maxEntries: 3, maxStreamBytes: 1000 };

describe('how much of a remote copy a mirror-back reads (mirrorVerdict)', () => {
  it("keeps Review's own caps for a local copy", () => {
    expect(MIRROR_LIMITS.maxFileBytes).toBe(REVIEW_LIMITS.maxTrackedFileBytes);
    expect(MIRROR_LIMITS.maxEntries).toBe(REVIEW_LIMITS.maxCopyFiles);
  });

  it('takes a file up to the per-file cap, lists one byte over it as too large and skips it', () => {
    expect(mirrorVerdict({ entries: 0, bytes: 0 }, { type: 'file', size: 100 }, limits)).toEqual({ verdict: 'take', tooLarge: false });
    expect(mirrorVerdict({ entries: 0, bytes: 0 }, { type: 'file', size: 101 }, limits)).toEqual({ verdict: 'too_large', tooLarge: true });
  });

  it('stops the stream rather than read past a too-large entry bigger than what is left of the stream cap (a 1 TiB file)', () => {
    expect(mirrorVerdict({ entries: 1, bytes: 0 }, { type: 'file', size: 2 ** 40 }, limits)).toEqual({ verdict: 'stop', tooLarge: true });
    expect(mirrorVerdict({ entries: 1, bytes: 950 }, { type: 'file', size: 60 }, limits)).toEqual({ verdict: 'stop', tooLarge: false });
  });

  it('stops at the entry past the per-copy entry cap; folders and links cost no bytes', () => {
    expect(mirrorVerdict({ entries: 2, bytes: 1000 }, { type: 'directory', size: 4096 }, limits).verdict).toBe('take');
    expect(mirrorVerdict({ entries: 3, bytes: 0 }, { type: 'symlink', size: 0 }, limits).verdict).toBe('stop');
  });
});

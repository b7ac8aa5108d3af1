import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MergeSegment } from '../../../shared/review.js';
import { conflictCount, markerSizeFor, parseMerged, renderMerged, resolveSegments } from './mergeRegions.js';

const line = fc.constantFrom('a', 'b', '', '<<<<<<<', '=======', '>>>>>>> chat', '||||||| base', '<<<<<<<<<<< mine', 'x = 1');
const lines = fc.array(line, { maxLength: 5 });
const segment: fc.Arbitrary<MergeSegment> = fc.oneof(
  lines.filter((l) => l.length > 0).map((l) => ({ kind: 'same' as const, lines: l })),
  fc.record({ base: lines, mine: lines, chat: lines }).map((r) => ({ kind: 'conflict' as const, ...r })),
);
/** Neighbouring "same" regions are one region. */
function joinSame(segments: MergeSegment[]): MergeSegment[] {
  const out: MergeSegment[] = [];
  for (const s of segments) {
    const last = out.at(-1);
    if (s.kind === 'same' && last?.kind === 'same') out[out.length - 1] = { kind: 'same', lines: [...last.lines, ...s.lines] };
    else out.push(s);
  }
  return out;
}

describe('mergeRegions', () => {
  it('reads back what it writes, whatever marker-like lines the file holds', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (raw) => {
        const segments = joinSame(raw);
        const all = segments.flatMap((s) => (s.kind === 'same' ? s.lines : [...s.base, ...s.mine, ...s.chat])).join('\n');
        const size = markerSizeFor([all]);
        expect(parseMerged(renderMerged(segments, size), size)).toEqual(segments);
      }),
    );
  });

  it('a resolution takes mine, the chat’s or the user’s text per conflict, in order', () => {
    const segments: MergeSegment[] = [
      { kind: 'same', lines: ['top'] },
      { kind: 'conflict', base: ['b1'], mine: ['m1'], chat: ['c1'] },
      { kind: 'same', lines: ['mid'] },
      { kind: 'conflict', base: ['b2'], mine: ['m2'], chat: ['c2'] },
      { kind: 'conflict', base: ['b3'], mine: ['m3'], chat: ['c3'] },
    ];
    expect(conflictCount(segments)).toBe(3);
    expect(resolveSegments(segments, ['mine', 'chat', { text: 'own\nedit' }])).toEqual({ lines: ['top', 'm1', 'mid', 'c2', 'own', 'edit'] });
    expect(resolveSegments(segments, ['mine'])).toEqual({ problem: 'The file has 3 conflicting regions now, and 1 choice was given.' });
  });

  it('makes markers longer than any run in the texts', () => {
    expect(markerSizeFor(['plain'])).toBe(7);
    expect(markerSizeFor(['a\n<<<<<<<<<< x\n'])).toBe(11);
  });
});

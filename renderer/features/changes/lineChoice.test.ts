import { describe, expect, it } from 'vitest';
import { commentRange, hunkKeys, rangeKeys, rowsOf, step, toLines, toggle } from './lineChoice';
import { twoHunkDiff } from '../../test/diffs';

const DIFF = twoHunkDiff('f');

describe('lineChoice', () => {
  const { rows, hunks } = rowsOf(DIFF);
  it('names removed lines by old number and added lines by new number', () => {
    expect(hunks).toHaveLength(2);
    expect(hunkKeys(rows, 0)).toEqual(['-2', '+2', '+3']);
    expect(hunkKeys(rows, 1)).toEqual(['-11', '+12']);
  });
  it('shift-click takes the changed rows between, across hunks; a request is numbers by side', () => {
    const sel = toggle(new Set(), rangeKeys(rows, '+3', '-11'), true);
    expect([...sel]).toEqual(['+3', '-11']);
    expect(toLines(sel)).toEqual({ removed: [11], added: [3] });
    expect(toLines(toggle(sel, ['-11'], false))).toEqual({ removed: [], added: [3] });
  });
  it('a comment is on the chat’s lines when any added line is chosen, else on the removed ones', () => {
    expect(commentRange(rows, new Set(['-2', '+2', '+3']))).toEqual({ side: 'new', startLine: 2, endLine: 3 });
    expect(commentRange(rows, new Set(['-11']))).toEqual({ side: 'old', startLine: 11, endLine: 11 });
    expect(commentRange(rows, new Set())).toBeNull();
  });
  it('arrows move between changed lines only, and stop at the ends', () => {
    expect(step(rows, null, 1)).toBe('-2');
    expect(step(rows, '+3', 1)).toBe('-11');
    expect(step(rows, '-2', -1)).toBe('-2');
    expect(step(rows, '+12', 1)).toBe('+12');
  });
});

import { describe, expect, it } from 'vitest';
import { bufferText, type BufferLike } from './registry';

function buffer(rows: Array<[string, boolean?]>): BufferLike {
  return {
    length: rows.length,
    getLine: (y) => {
      const row = rows[y];
      return row && { isWrapped: row[1] ?? false, translateToString: (trim?: boolean) => (trim ? row[0].trimEnd() : row[0]) };
    },
  };
}

describe('bufferText', () => {
  it('joins rows with newlines, wrapped rows onto the line before, without trailing empty rows', () => {
    expect(bufferText(buffer([['$ echo hi   '], ['hi'], ['$ very long li'], ['ne output', true], [''], ['']]))).toBe(
      '$ echo hi\nhi\n$ very long line output',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { bufferText, screenText, type BufferLike } from './registry';

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

describe('screenText', () => {
  it('reads only the rows in view, from the viewport down, not the scrollback above it', () => {
    const b = { ...buffer([['old 1'], ['old 2'], ['$ ls  '], ['a.txt'], ['$']]), viewportY: 2 };
    expect(screenText(b, 3)).toBe('$ ls\na.txt\n$');
    expect(screenText(b, 10)).toBe('$ ls\na.txt\n$');
  });
});

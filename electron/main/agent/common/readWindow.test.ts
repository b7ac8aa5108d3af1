import { describe, expect, it } from 'vitest';
import { readWindow } from './readWindow.js';

const f = { first: 1, lines: 3, size: 6, limitBytes: 100 };

describe('readWindow', () => {
  it('shows a file that fits whole, with no note', () => {
    expect(readWindow('a\nb\nc\n', f)).toBe('a\nb\nc\n');
    expect(readWindow('a\nb\nc', f)).toBe('a\nb\nc');
    expect(readWindow('', { ...f, lines: 0, size: 0 })).toBe('');
  });

  it('says which lines a range showed and where to read on', () => {
    expect(readWindow('b\n', { ...f, first: 2 })).toBe('b\n[shown: lines 2–2 of 3 lines, 6 bytes in all; the rest was left out. Read on with offset 3.]');
    expect(readWindow('c\n', { ...f, first: 3 })).toBe('c\n');
  });

  it('cuts at the last whole line within the limit', () => {
    const out = readWindow('1234\n5678\n9', { first: 1, lines: 3, size: 11, limitBytes: 7 });
    expect(out).toBe('1234\n[shown: lines 1–1 of 3 lines, 11 bytes in all (a read returns at most 7 bytes); the rest was left out. Read on with offset 2.]');
  });

  it('cuts inside a line longer than the limit, never inside a character', () => {
    const out = readWindow('ééééé', { first: 1, lines: 1, size: 10, limitBytes: 5 });
    expect(out).toBe('éé\n[shown: the first 4 bytes of line 1 of 1 lines, 10 bytes in all (a read returns at most 5 bytes); the rest was left out.]');
  });

  it('says when the first line asked for is past the end', () => {
    expect(readWindow('', { ...f, first: 9 })).toBe('[line 9 is past the end: the file has 3 lines]');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineScript, unifiedDiff } from './lineDiff.js';

describe('unifiedDiff', () => {
  it('shows a changed line with three lines of context', () => {
    const before = ['1', '2', '3', '4', '5', '6', '7', '8', ''].join('\n');
    const after = before.replace('5', 'five');
    expect(unifiedDiff('/workspace/a.txt', before, after)).toBe(
      ['diff --git a/workspace/a.txt b/workspace/a.txt', '--- a/workspace/a.txt', '+++ b/workspace/a.txt', '@@ -2,7 +2,7 @@', ' 2', ' 3', ' 4', '-5', '+five', ' 6', ' 7', ' 8', ''].join('\n'),
    );
  });

  it('splits changes far apart into hunks, and is empty when nothing changed', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    const after = [...lines];
    after[2] = 'changed';
    after[30] = 'changed too';
    const diff = unifiedDiff('f', `${lines.join('\n')}\n`, `${after.join('\n')}\n`);
    expect(diff.match(/^@@/gm)).toHaveLength(2);
    expect(diff).toContain('@@ -28,7 +28,7 @@');
    expect(unifiedDiff('f', 'same\n', 'same\n')).toBe('');
  });

  it('marks a last line without a newline', () => {
    expect(unifiedDiff('f', 'a', 'b')).toContain('-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file');
  });

  it('keeps every line of both texts in order (property)', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        const ops = lineScript(a, b);
        expect(ops.filter((o) => o.kind !== '+').map((o) => o.line)).toEqual(a);
        expect(ops.filter((o) => o.kind !== '-').map((o) => o.line)).toEqual(b);
      }),
    );
  });
});

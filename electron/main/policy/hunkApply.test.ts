import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patchedText } from './hunkApply.js';
import { parseFilePatch, selectHunks, wholeHunk, type FilePatch, type LineSelection } from './hunkPatch.js';
import { unifiedDiff } from './lineDiff.js';

/** Texts of a few lines, with or without a final newline. */
const text = fc
  .tuple(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', ''), { maxLength: 24 }), fc.boolean())
  .map(([ls, newline]) => (ls.length === 0 ? '' : `${ls.join('\n')}${newline ? '\n' : ''}`));

function all(patch: FilePatch): LineSelection {
  const w = patch.hunks.map(wholeHunk);
  return { removed: w.flatMap((s) => s.removed), added: w.flatMap((s) => s.added) };
}

function randomSelection(patch: FilePatch, coin: Iterator<boolean>): LineSelection {
  const removed: number[] = [];
  const added: number[] = [];
  for (const h of patch.hunks) for (const l of h.lines) {
    if (l.kind === '-' && coin.next().value) removed.push(l.oldNo as number);
    if (l.kind === '+' && coin.next().value) added.push(l.newNo as number);
  }
  return { removed, added };
}

function applied(before: string, patch: FilePatch, sel: LineSelection, now = before): string {
  const out = patchedText(selectHunks(patch, sel), before, now);
  if (!out.ok) throw new Error(`did not fit: ${out.fit.why}`);
  return out.text;
}

/** Runs `check` on random texts that differ, with their patch and a random choice of its lines. */
function forChanges(check: (before: string, after: string, patch: FilePatch, sel: LineSelection) => void): void {
  fc.assert(
    fc.property(text, text, fc.infiniteStream(fc.boolean()), (before, after, coin) => {
      const diff = unifiedDiff('f', before, after);
      fc.pre(diff !== '');
      const patch = parseFilePatch(diff);
      check(before, after, patch, randomSelection(patch, coin));
    }),
  );
}

describe('patchedText', () => {
  it('every line chosen gives the new file byte for byte, final newline or not', () => {
    forChanges((before, after, patch) => expect(applied(before, patch, all(patch))).toBe(after));
  });

  it('chosen lines go in, the rest stays a change: taking the rest afterwards gives the new file', () => {
    forChanges((before, after, patch, sel) => {
      const middle = applied(before, patch, sel);
      const rest = unifiedDiff('f', middle, after);
      if (rest === '') {
        expect(middle).toBe(after);
        return;
      }
      const restPatch = parseFilePatch(rest);
      expect(applied(middle, restPatch, all(restPatch))).toBe(after);
    });
  });

  it('on a file the user added lines to the top of, the same lines go in below them', () => {
    forChanges((before, _after, patch, sel) => {
      const moved = patchedText(selectHunks(patch, sel), before, `USER 1\nUSER 2\n${before}`);
      // Ambiguous or no longer unique: refused, never put somewhere else.
      if (before === '' || !moved.ok) return;
      expect(moved.text).toBe(`USER 1\nUSER 2\n${applied(before, patch, sel)}`);
    });
  });

  it('a line ending that differs from the hunk’s is a conflict, not a guess', () => {
    // The base ends without a newline; the user's file has one there now.
    const patch = parseFilePatch(unifiedDiff('f', 'a\nb\nc', 'a\nB\nc'));
    const out = patchedText(selectHunks(patch, all(patch)), 'a\nb\nc', 'a\nb\nc\n');
    expect(out).toMatchObject({ ok: false, fit: { why: 'changed' } });
  });

  it('a hunk that leaves its last line without a newline fits only where the file still ends', () => {
    // The chat dropped the final newline; the user added a line after: git apply wrote "a\nbc\n".
    const patch = parseFilePatch(unifiedDiff('f', 'a\nb\n', 'a\nb'));
    const hunks = selectHunks(patch, all(patch));
    expect(patchedText(hunks, 'a\nb\n', 'a\nb\n')).toEqual({ ok: true, text: 'a\nb' });
    expect(patchedText(hunks, 'a\nb\n', 'a\nb\nc\n')).toMatchObject({ ok: false, fit: { why: 'changed' } });
  });

  it('a changed or ambiguous place is refused with the lines there', () => {
    const base = 'a\nb\nc\nd\ne\nf\ng\n';
    const patch = parseFilePatch(unifiedDiff('f', base, base.replace('d\n', 'D\n')));
    const hunks = selectHunks(patch, all(patch));
    expect(patchedText(hunks, base, base.replace('c\n', 'C\n'))).toMatchObject({ ok: false, fit: { why: 'changed' } });
    expect(patchedText(hunks, base, `${base}${base}`)).toMatchObject({ ok: false, fit: { why: 'ambiguous' } });
  });
});

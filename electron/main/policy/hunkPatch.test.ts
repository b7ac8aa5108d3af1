import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hunksFit, parseFilePatch, selectHunks, selectionPatch, selectsAll, textLines, wholeHunk, type Hunk, type LineSelection } from './hunkPatch.js';
import { unifiedDiff } from './lineDiff.js';

/** Applies hunks where they say they go (the old file's numbering), as git apply does on an unchanged file. */
function applyExact(base: string, hunks: readonly Hunk[]): string {
  const lines = textLines(base);
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    const start = h.oldLines === 0 ? h.oldStart : h.oldStart - 1;
    while (at < start) out.push(lines[at++] as string);
    for (const l of h.lines) {
      if (l.kind === ' ') {
        expect(lines[at]).toBe(l.text);
        out.push(lines[at++] as string);
      } else if (l.kind === '-') {
        expect(lines[at]).toBe(l.text);
        at++;
      } else out.push(l.text);
    }
  }
  while (at < lines.length) out.push(lines[at++] as string);
  return out.length ? `${out.join('\n')}\n` : '';
}

const text = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 30 }).map((ls) => (ls.length ? `${ls.join('\n')}\n` : ''));

describe('hunkPatch', () => {
  it('all lines chosen give the new file; none give no patch', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const diff = unifiedDiff('f.txt', before, after);
        fc.pre(diff !== '');
        const patch = parseFilePatch(diff);
        const all = patch.hunks.map(wholeHunk);
        const sel: LineSelection = { removed: all.flatMap((s) => s.removed), added: all.flatMap((s) => s.added) };
        expect(selectsAll(patch, sel)).toBe(true);
        expect(applyExact(before, selectHunks(patch, sel))).toBe(after);
        expect(selectionPatch(patch, { removed: [], added: [] })).toBeNull();
      }),
    );
  });

  it('chosen lines change and the rest stays: taking the rest afterwards gives the new file', () => {
    fc.assert(
      fc.property(text, text, fc.infiniteStream(fc.boolean()), (before, after, coin) => {
        const diff = unifiedDiff('f.txt', before, after);
        fc.pre(diff !== '');
        const patch = parseFilePatch(diff);
        const removed: number[] = [];
        const added: number[] = [];
        for (const h of patch.hunks) for (const l of h.lines) {
          if (l.kind === '-' && coin.next().value) removed.push(l.oldNo as number);
          if (l.kind === '+' && coin.next().value) added.push(l.newNo as number);
        }
        const middle = applyExact(before, selectHunks(patch, { removed, added }));
        // Exactly the chosen lines went and came: the old lines minus the removed plus the added.
        expect(textLines(middle).length).toBe(textLines(before).length - removed.length + added.length);
        // The rest is what is left: the middle's diff to the new file, taken whole, ends there.
        const rest = unifiedDiff('f.txt', middle, after);
        if (rest === '') {
          expect(middle).toBe(after);
          return;
        }
        const restPatch = parseFilePatch(rest);
        const all = restPatch.hunks.map(wholeHunk);
        expect(applyExact(middle, selectHunks(restPatch, { removed: all.flatMap((s) => s.removed), added: all.flatMap((s) => s.added) }))).toBe(after);
      }),
    );
  });

  it('a run at the end of a file without a newline is taken whole', () => {
    const patch = parseFilePatch(unifiedDiff('f', 'a\nb', 'a\nc\nd'));
    const h = patch.hunks[0]!;
    const dLine = h.lines.find((l) => l.text.startsWith('d'))!;
    const out = selectionPatch(patch, { removed: [], added: [dLine.newNo as number] })!;
    expect(out).toContain('-b\n\\ No newline at end of file\n+c\n+d\n');
  });

  it('keeps the header and renumbers later hunks after a partial one', () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n') + '\n';
    const after = before.replace('l1\n', 'l1\nx\ny\n').replace('l18\n', 'L18\n');
    const patch = parseFilePatch(unifiedDiff('f', before, after));
    expect(patch.hunks).toHaveLength(2);
    const xLine = patch.hunks[0]!.lines.find((l) => l.text === 'x')!;
    const out = selectionPatch(patch, { removed: [19], added: [xLine.newNo as number, 21] })!;
    expect(out.startsWith('diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,5 +1,6 @@')).toBe(true);
    expect(out).toContain('@@ -16,5 +17,5 @@');
  });

  it('a hunk fits a moved-on file when its old lines appear once after the last, and not when changed or ambiguous', () => {
    const base = 'a\nb\nc\nd\ne\nf\ng\n';
    const patch = parseFilePatch(unifiedDiff('f', base, base.replace('d\n', 'D\n')));
    const hunks = selectHunks(patch, wholeHunk(patch.hunks[0]!));
    expect(hunksFit(hunks, base, base)).toMatchObject({ fits: true });
    expect(hunksFit(hunks, base, `top\n${base}`)).toMatchObject({ fits: true });
    const changed = hunksFit(hunks, base, base.replace('c\n', 'C\n'));
    expect(changed).toMatchObject({ fits: false, why: 'changed', theirsStart: 1 });
    expect(hunksFit(hunks, base, `${base}${base}`)).toMatchObject({ fits: false, why: 'ambiguous' });
  });
});

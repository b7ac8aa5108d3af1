/**
 * The user's file with chosen hunks put in: where hunksFit found each hunk's old lines (once, in
 * order), those lines give way to the hunk's new ones, and nothing else of the file changes. Each
 * old line must be there with its line ending as the hunk says it (git's "\ No newline at end of
 * file" included), as git apply demands; and a line without its newline may only end the file,
 * which git apply would not check (it wrote "a\nbc\n" for a hunk that drops the last newline of
 * a file the user had added a line "c" to). So the text is exactly the chosen lines and the
 * file's own, or the hunk that does not fit is named. Pure. Not jsdiff's applyPatch (diff@9):
 * it places a hunk at the nearest offset where its lines match, where a hunk whose lines occur
 * more than once must be refused here, and it converts line endings unless told not to.
 */
import { hunksFit, textLines, type Hunk, type HunkFit } from './hunkPatch.js';

export type Patched = { ok: true; text: string } | { ok: false; fit: Extract<HunkFit, { fits: false }> };

/** `nowText` (the folder's file) with `hunks` (selectHunks of a patch made from `baseText`) applied. */
export function patchedText(hunks: readonly Hunk[], baseText: string, nowText: string): Patched {
  const fit = hunksFit(hunks, baseText, nowText);
  if (!fit.fits) return { ok: false, fit };
  const now = textLines(nowText);
  const endsInNewline = nowText.endsWith('\n');
  const hasNewline = (i: number) => i < now.length - 1 || endsInNewline;
  const out: { text: string; newline: boolean }[] = [];
  let cursor = 0;
  const misfit = (h: Hunk, start: number): Patched => ({ ok: false, fit: { fits: false, why: 'changed', hunk: h, theirsStart: start + 1, theirs: now.slice(start, start + Math.max(1, h.lines.length)) } });
  for (const [k, h] of hunks.entries()) {
    const start = fit.at[k]!;
    for (; cursor < start; cursor++) out.push({ text: now[cursor]!, newline: hasNewline(cursor) });
    for (const l of h.lines) {
      if (l.kind !== '+') {
        if (now[cursor] !== l.text || hasNewline(cursor) === l.noEol) return misfit(h, start);
        cursor++;
      }
      if (l.kind !== '-') out.push({ text: l.text, newline: !l.noEol });
    }
  }
  for (; cursor < now.length; cursor++) out.push({ text: now[cursor]!, newline: hasNewline(cursor) });
  if (out.slice(0, -1).some((l) => !l.newline)) {
    const h = hunks.find((x) => x.lines.some((l) => l.kind !== '-' && l.noEol)) ?? hunks.at(-1)!;
    return misfit(h, fit.at[hunks.indexOf(h)]!);
  }
  return { ok: true, text: out.map((l) => (l.newline ? `${l.text}\n` : l.text)).join('') };
}

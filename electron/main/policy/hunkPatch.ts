/**
 * Apply by hunk and by line: one file's unified git diff read into hunks, a selection of its
 * changed lines made into a patch of just those lines (what `git add -p`'s edit does: an
 * unselected removal stays as context, an unselected addition is left out), and whether each
 * hunk of such a patch still fits a file that moved on without ambiguity. Pure.
 */
import { parseFilePatch, wholeHunk, type FilePatch, type Hunk, type HunkLine, type LineSelection } from '../../../shared/diffHunks.js';

export { parseFilePatch, wholeHunk, type FilePatch, type Hunk, type HunkLine, type LineSelection };

/**
 * Which lines of a hunk are chosen. A run of changes that touches the end of the file without a
 * newline is taken whole or not at all: taking part of it would ask for a last line that both
 * has and lacks its newline, which no patch can say.
 */
function chosenLines(h: Hunk, sel: LineSelection): boolean[] {
  const removed = new Set(sel.removed);
  const added = new Set(sel.added);
  const chosen = h.lines.map((l) => (l.kind === '-' ? removed.has(l.oldNo as number) : l.kind === '+' ? added.has(l.newNo as number) : false));
  for (let i = 0; i < h.lines.length; ) {
    if (h.lines[i]!.kind === ' ') {
      i++;
      continue;
    }
    let j = i;
    while (j < h.lines.length && h.lines[j]!.kind !== ' ') j++;
    const run = h.lines.slice(i, j);
    if (run.some((l) => l.noEol) && chosen.slice(i, j).some(Boolean)) for (let k = i; k < j; k++) chosen[k] = true;
    i = j;
  }
  return chosen;
}

/** The hunks of a selection, numbered for the old file; a hunk with nothing chosen is left out. */
export function selectHunks(patch: FilePatch, sel: LineSelection): Hunk[] {
  const out: Hunk[] = [];
  let shift = 0;
  for (const h of patch.hunks) {
    const chosen = chosenLines(h, sel);
    if (!chosen.some(Boolean)) continue;
    const lines: HunkLine[] = [];
    h.lines.forEach((l, i) => {
      if (l.kind === ' ' || chosen[i]) lines.push({ ...l });
      else if (l.kind === '-') lines.push({ ...l, kind: ' ' });
      // an addition not chosen is simply not there
    });
    const oldLines = lines.filter((l) => l.kind !== '+').length;
    const newLines = lines.filter((l) => l.kind !== '-').length;
    // git numbers an empty side one line before where it would start.
    const newStart = newLines === 0 ? h.oldStart + shift - (oldLines === 0 ? 0 : 1) : oldLines === 0 ? h.oldStart + shift + 1 : h.oldStart + shift;
    out.push({ oldStart: h.oldStart, oldLines, newStart, newLines, section: h.section, lines });
    shift += newLines - oldLines;
  }
  return out;
}

function hunkText(h: Hunk): string {
  const rows = [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@${h.section}`];
  for (const l of h.lines) {
    rows.push(`${l.kind}${l.text}`);
    if (l.noEol) rows.push('\\ No newline at end of file');
  }
  return `${rows.join('\n')}\n`;
}

/** The patch of the chosen lines (header kept), or null when nothing is chosen. */
export function selectionPatch(patch: FilePatch, sel: LineSelection): string | null {
  const hunks = selectHunks(patch, sel);
  if (hunks.length === 0) return null;
  return `${patch.header.join('\n')}\n${hunks.map(hunkText).join('')}`;
}

/** Whether every changed line of the file is chosen (an added or deleted file is applied only whole). */
export function selectsAll(patch: FilePatch, sel: LineSelection): boolean {
  const removed = new Set(sel.removed);
  const added = new Set(sel.added);
  return patch.hunks.every((h) => h.lines.every((l) => (l.kind === '-' ? removed.has(l.oldNo as number) : l.kind === '+' ? added.has(l.newNo as number) : true)));
}

/** Lines of a text as a hunk sees them (no trailing empty line for a final newline). */
export function textLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function occurrences(lines: readonly string[], pre: readonly string[]): number[] {
  const at: number[] = [];
  if (pre.length === 0) return at;
  for (let i = 0; i + pre.length <= lines.length; i++) {
    let ok = true;
    for (let k = 0; k < pre.length; k++) {
      if (lines[i + k] !== pre[k]) {
        ok = false;
        break;
      }
    }
    if (ok) at.push(i);
  }
  return at;
}

export type HunkFit =
  | { fits: true; /** Where each hunk's old lines start in the folder's file (0-based line index). */ at: number[] }
  | { fits: false; why: 'changed' | 'ambiguous'; hunk: Hunk; /** The folder's lines where the hunk would go now (1-based start). */ theirsStart: number; theirs: string[] };

/**
 * Whether the selected hunks fit the folder's file now. `baseText` is what the patch was made
 * from: a file equal to it takes every hunk where it was made. Otherwise each hunk's old lines
 * (context and removals) must appear exactly once in the file, after the previous hunk's: none is a conflict (the lines changed), more than one is ambiguous (git apply would pick
 * the nearest; Berth asks instead). The first that does not fit is returned with the lines there.
 */
export function hunksFit(hunks: readonly Hunk[], baseText: string, nowText: string): HunkFit {
  // git numbers an empty old side one line before where it is (0: the file's start).
  if (baseText === nowText) return { fits: true, at: hunks.map((h) => (h.lines.some((l) => l.kind !== '+') ? h.oldStart - 1 : h.oldStart)) };
  const now = textLines(nowText);
  const at: number[] = [];
  let from = 0;
  let shift = 0;
  for (const h of hunks) {
    const pre = h.lines.filter((l) => l.kind !== '+').map((l) => l.text);
    const expected = Math.max(0, h.oldStart - 1 + shift);
    const where = () => now.slice(expected, expected + Math.max(pre.length, 1));
    if (pre.length === 0) {
      // A hunk with no old lines (adding to an empty file) fits only a file still empty.
      if (now.length === 0) {
        at.push(0);
        continue;
      }
      return { fits: false, why: 'changed', hunk: h, theirsStart: 1, theirs: now.slice(0, 3) };
    }
    // Anywhere in the file, not only after the last hunk: git apply looks nearest first, either way.
    const found = occurrences(now, pre);
    if (found.length > 1) return { fits: false, why: 'ambiguous', hunk: h, theirsStart: expected + 1, theirs: where() };
    const start = found[0];
    if (start === undefined || start < from) return { fits: false, why: 'changed', hunk: h, theirsStart: expected + 1, theirs: where() };
    at.push(start);
    shift = start - (h.oldStart - 1);
    from = start + pre.length;
  }
  return { fits: true, at };
}

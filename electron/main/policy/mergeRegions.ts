/**
 * The three-way view of a file both the user and the chat changed: git merge-file's output
 * (`-p --diff3`, labels mine/base/chat) read into regions that are the same for all and regions
 * in conflict, and a resolution (per conflict: mine, the chat's, or the user's own text) made into
 * the file. Markers are made longer than any marker-like run the three texts hold, so a line of
 * the file can never be read as a marker. Pure.
 */
import type { ConflictChoice, MergeSegment } from '../../../shared/review.js';

export const MERGE_LABELS = { mine: 'mine', base: 'base', chat: 'chat' } as const;

/** A marker size above any run of <, |, = or > that starts a line in these texts (git's default is 7). */
export function markerSizeFor(texts: readonly string[]): number {
  let longest = 0;
  for (const t of texts) for (const m of t.matchAll(/^([<|=>])\1*/gm)) longest = Math.max(longest, m[0].length);
  return Math.max(7, longest + 1);
}

/** Lines of a text (no empty last line for a final newline). */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Reads merge-file's output made with `markerSize` and MERGE_LABELS. */
export function parseMerged(text: string, markerSize: number): MergeSegment[] {
  const open = `${'<'.repeat(markerSize)} ${MERGE_LABELS.mine}`;
  const mid = `${'|'.repeat(markerSize)} ${MERGE_LABELS.base}`;
  const sep = '='.repeat(markerSize);
  const close = `${'>'.repeat(markerSize)} ${MERGE_LABELS.chat}`;
  const out: MergeSegment[] = [];
  let same: string[] = [];
  let region: { base: string[]; mine: string[]; chat: string[] } | null = null;
  let side: 'mine' | 'base' | 'chat' = 'mine';
  for (const line of linesOf(text)) {
    if (region === null) {
      if (line === open) {
        if (same.length) out.push({ kind: 'same', lines: same });
        same = [];
        region = { base: [], mine: [], chat: [] };
        side = 'mine';
      } else same.push(line);
      continue;
    }
    if (line === mid) side = 'base';
    else if (line === sep) side = 'chat';
    else if (line === close) {
      out.push({ kind: 'conflict', ...region });
      region = null;
    } else region[side].push(line);
  }
  if (region) throw new Error('merge-file output ends inside a conflict');
  if (same.length) out.push({ kind: 'same', lines: same });
  return out;
}

/** The inverse of parseMerged, for its tests and for a view that shows the markers. */
export function renderMerged(segments: readonly MergeSegment[], markerSize: number): string {
  const rows: string[] = [];
  for (const s of segments) {
    if (s.kind === 'same') rows.push(...s.lines);
    else {
      rows.push(`${'<'.repeat(markerSize)} ${MERGE_LABELS.mine}`, ...s.mine, `${'|'.repeat(markerSize)} ${MERGE_LABELS.base}`, ...s.base);
      rows.push('='.repeat(markerSize), ...s.chat, `${'>'.repeat(markerSize)} ${MERGE_LABELS.chat}`);
    }
  }
  return rows.length ? `${rows.join('\n')}\n` : '';
}

export function conflictCount(segments: readonly MergeSegment[]): number {
  return segments.filter((s) => s.kind === 'conflict').length;
}

/** The resolved file's lines, or why the choices do not fit (one per conflict, in order). */
export function resolveSegments(segments: readonly MergeSegment[], choices: readonly ConflictChoice[]): { lines: string[] } | { problem: string } {
  const n = conflictCount(segments);
  if (choices.length !== n) return { problem: `The file has ${n} conflicting ${n === 1 ? 'region' : 'regions'} now, and ${choices.length} ${choices.length === 1 ? 'choice was' : 'choices were'} given.` };
  const lines: string[] = [];
  let i = 0;
  for (const s of segments) {
    if (s.kind === 'same') {
      lines.push(...s.lines);
      continue;
    }
    const c = choices[i++] as ConflictChoice;
    if (c === 'mine') lines.push(...s.mine);
    else if (c === 'chat') lines.push(...s.chat);
    else lines.push(...linesOf(c.text.endsWith('\n') || c.text === '' ? c.text : `${c.text}\n`));
  }
  return { lines };
}

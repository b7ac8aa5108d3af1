/**
 * Choosing hunks and lines in one file's diff: the rows the chooser draws, and the selection as
 * keys ('-12': old line 12 removed, '+14': new line 14 added) that click, shift-click, the
 * keyboard and a hunk's checkbox change. What review.applyLines and review.comment get is made
 * from it here. No React here.
 */
import { parseFilePatch, type Hunk, type HunkLine } from '../../../shared/diffHunks';

export interface Row {
  /** '-12', '+14', or ' 7' for a context line (never selected). */
  key: string;
  hunk: number;
  line: HunkLine;
}

export function keyOf(l: HunkLine): string {
  return l.kind === '-' ? `-${l.oldNo}` : l.kind === '+' ? `+${l.newNo}` : ` ${l.oldNo}`;
}

export function rowsOf(diff: string | null): { hunks: Hunk[]; rows: Row[] } {
  const hunks = diff ? parseFilePatch(diff).hunks : [];
  const rows = hunks.flatMap((h, i) => h.lines.map((line) => ({ key: keyOf(line), hunk: i, line })));
  return { hunks, rows };
}

export const changed = (r: Row) => r.line.kind !== ' ';

/** The changed rows of a hunk. */
export function hunkKeys(rows: readonly Row[], hunk: number): string[] {
  return rows.filter((r) => r.hunk === hunk && changed(r)).map((r) => r.key);
}

export function toggle(sel: ReadonlySet<string>, keys: readonly string[], on: boolean): Set<string> {
  const next = new Set(sel);
  for (const k of keys) {
    if (on) next.add(k);
    else next.delete(k);
  }
  return next;
}

/** The changed rows from one key to another, in the order drawn (shift-click, shift+arrow). */
export function rangeKeys(rows: readonly Row[], from: string, to: string): string[] {
  const a = rows.findIndex((r) => r.key === from);
  const b = rows.findIndex((r) => r.key === to);
  if (a < 0 || b < 0) return [to];
  const [lo, hi] = a <= b ? [a, b] : [b, a];
  return rows.slice(lo, hi + 1).filter(changed).map((r) => r.key);
}

/** The request's lines: removed by old number, added by new number. */
export function toLines(sel: ReadonlySet<string>): { removed: number[]; added: number[] } {
  const removed: number[] = [];
  const added: number[] = [];
  for (const k of sel) (k.startsWith('-') ? removed : added).push(Number(k.slice(1)));
  return { removed: removed.sort((x, y) => x - y), added: added.sort((x, y) => x - y) };
}

/**
 * What a comment on the chosen rows is on: the new file's lines when any chosen row is an added
 * line (the chat's lines), else the removed lines of the old file; as one range from the first
 * to the last.
 */
export function commentRange(rows: readonly Row[], sel: ReadonlySet<string>): { side: 'new' | 'old'; startLine: number; endLine: number } | null {
  const chosen = rows.filter((r) => sel.has(r.key));
  if (chosen.length === 0) return null;
  const added = chosen.filter((r) => r.line.kind === '+').map((r) => r.line.newNo as number);
  const nums = added.length ? added : chosen.map((r) => r.line.oldNo as number);
  return { side: added.length ? 'new' : 'old', startLine: Math.min(...nums), endLine: Math.max(...nums) };
}

/** The next changed row from `key` (dir 1 down, -1 up), or the first one. */
export function step(rows: readonly Row[], key: string | null, dir: 1 | -1): string | null {
  const keys = rows.filter(changed).map((r) => r.key);
  if (keys.length === 0) return null;
  const i = key === null ? -1 : keys.indexOf(key);
  if (i < 0) return keys[0] as string;
  return keys[Math.min(keys.length - 1, Math.max(0, i + dir))] as string;
}

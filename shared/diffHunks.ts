/**
 * One file's unified git diff read into hunks and lines, with each changed line's number: what
 * both ends name lines by when the user chooses hunks or lines to apply or comment on (a removed
 * line by its old number, an added line by its new one). Pure.
 */

export interface HunkLine {
  kind: ' ' | '-' | '+';
  text: string;
  /** Followed by git's "\ No newline at end of file". */
  noEol: boolean;
  /** The line's number in the old file (context and removals) or the new one (additions). */
  oldNo: number | null;
  newNo: number | null;
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** What follows the second @@ (the function git names), kept as it was. */
  section: string;
  lines: HunkLine[];
}

export interface FilePatch {
  /** The lines before the first hunk (diff --git, index, modes, ---, +++). */
  header: string[];
  hunks: Hunk[];
}

/** The changed lines chosen in one file: removed lines by their old number, added lines by their new one. */
export interface LineSelection {
  removed: readonly number[];
  added: readonly number[];
}

const HUNK_HEAD = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

/** Reads one file's diff (git's format, as review.diff sends it). */
export function parseFilePatch(text: string): FilePatch {
  const rows = text.split('\n');
  if (rows.at(-1) === '') rows.pop();
  const header: string[] = [];
  const hunks: Hunk[] = [];
  let cur: Hunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  for (const row of rows) {
    const head = HUNK_HEAD.exec(row);
    if (head) {
      cur = { oldStart: Number(head[1]), oldLines: head[2] === undefined ? 1 : Number(head[2]), newStart: Number(head[3]), newLines: head[4] === undefined ? 1 : Number(head[4]), section: head[5] ?? '', lines: [] };
      hunks.push(cur);
      oldNo = cur.oldStart;
      newNo = cur.newStart;
      continue;
    }
    if (!cur) {
      header.push(row);
      continue;
    }
    if (row.startsWith('\\')) {
      const last = cur.lines.at(-1);
      if (last) last.noEol = true;
      continue;
    }
    const kind = row[0] === '-' ? '-' : row[0] === '+' ? '+' : ' ';
    const line: HunkLine = { kind, text: row.slice(1), noEol: false, oldNo: kind === '+' ? null : oldNo, newNo: kind === '-' ? null : newNo };
    if (kind !== '+') oldNo++;
    if (kind !== '-') newNo++;
    cur.lines.push(line);
  }
  return { header, hunks };
}

/** Every changed line of a hunk as a selection: what choosing the whole hunk means. */
export function wholeHunk(h: Hunk): { removed: number[]; added: number[] } {
  return {
    removed: h.lines.filter((l) => l.kind === '-').map((l) => l.oldNo as number),
    added: h.lines.filter((l) => l.kind === '+').map((l) => l.newNo as number),
  };
}


/**
 * A unified diff of two texts, line by line, with three lines of context: what an edit_file
 * card and its approval show. The common head and tail are skipped first, then Myers' O(ND)
 * algorithm finds the fewest changes in between; an edit's few changes keep D small. A middle
 * too different to align within MAX_EDIT_DISTANCE is shown as one block removed and added. Pure.
 */

const CONTEXT = 3;
/** Beyond this many changed lines the diff is not aligned further (its cost grows with D²). */
const MAX_EDIT_DISTANCE = 2_000;

export type Op = { kind: ' ' | '-' | '+'; line: string };

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else lines[lines.length - 1] += '\n\\ No newline at end of file';
  return lines;
}

/** The shortest edit script between a and b, or null when it is longer than the limit. */
function myers(a: readonly string[], b: readonly string[]): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[off + k - 1] as number) < (v[off + k + 1] as number)) ? (v[off + k + 1] as number) : (v[off + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d, off);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[], dEnd: number, off: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d] as Int32Array;
    const k = x - y;
    const down = k === -d || (k !== d && (v[off + k - 1] as number) < (v[off + k + 1] as number));
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[off + prevK] as number;
    const prevY = prevX - prevK;
    for (; x > prevX && y > prevY; y--) ops.push({ kind: ' ', line: a[--x] as string });
    if (down) ops.push({ kind: '+', line: b[--y] as string });
    else ops.push({ kind: '-', line: a[--x] as string });
  }
  for (; x > 0 && y > 0; y--) ops.push({ kind: ' ', line: a[--x] as string });
  return ops.reverse();
}

/** Every line of both texts in order, each kept, removed or added. Exported for its tests. */
export function lineScript(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const middle = myers(midA, midB) ?? [...midA.map((line) => ({ kind: '-' as const, line })), ...midB.map((line) => ({ kind: '+' as const, line }))];
  return [...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })), ...middle, ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line }))];
}

/** The unified diff (git's shape, `a/` and `b/` prefixes) of `before` to `after`; '' when equal. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const ops = lineScript(splitLines(before), splitLines(after));
  const changed = ops.flatMap((op, i) => (op.kind === ' ' ? [] : [i]));
  if (changed.length === 0) return '';
  const name = path.replace(/^\/+/, '');
  const out = [`diff --git a/${name} b/${name}`, `--- a/${name}`, `+++ b/${name}`];
  // Line numbers before each op, to name where each hunk starts.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let o = 1;
  let n = 1;
  for (const op of ops) {
    oldAt.push(o);
    newAt.push(n);
    if (op.kind !== '+') o++;
    if (op.kind !== '-') n++;
  }
  let i = 0;
  while (i < changed.length) {
    const start = Math.max(0, (changed[i] as number) - CONTEXT);
    let last = changed[i] as number;
    while (i + 1 < changed.length && (changed[i + 1] as number) - last <= 2 * CONTEXT) last = changed[++i] as number;
    i++;
    const end = Math.min(ops.length, last + CONTEXT + 1);
    const hunk = ops.slice(start, end);
    const oldLen = hunk.filter((op) => op.kind !== '+').length;
    const newLen = hunk.filter((op) => op.kind !== '-').length;
    const oldStart = oldLen === 0 ? (oldAt[start] as number) - 1 : (oldAt[start] as number);
    const newStart = newLen === 0 ? (newAt[start] as number) - 1 : (newAt[start] as number);
    out.push(`@@ -${oldStart},${oldLen} +${newStart},${newLen} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
  }
  return `${out.join('\n')}\n`;
}

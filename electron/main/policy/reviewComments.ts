/**
 * Review comments' pure parts: where a comment's quoted lines are in the file now (the same
 * place, moved, or gone: outdated), and the one message a review draft sends to the agent.
 */
export interface Anchor {
  startLine: number;
  outdated: boolean;
}

/**
 * The comment's lines in `lines` now: still at `startLine`; else, when the quote appears exactly
 * once, where it moved; else outdated (it stays where it was, marked so).
 */
export function anchorComment(quote: readonly string[], startLine: number, lines: readonly string[] | null): Anchor {
  if (lines === null || quote.length === 0) return { startLine, outdated: true };
  const at = (i: number) => quote.every((q, k) => lines[i + k] === q);
  if (startLine >= 1 && at(startLine - 1)) return { startLine, outdated: false };
  const found: number[] = [];
  for (let i = 0; i + quote.length <= lines.length && found.length < 2; i++) if (at(i)) found.push(i);
  return found.length === 1 ? { startLine: (found[0] as number) + 1, outdated: false } : { startLine, outdated: true };
}

export interface DraftComment {
  folder: string;
  path: string;
  side: 'new' | 'old';
  startLine: number;
  endLine: number;
  quote: readonly string[];
  body: string;
}

/** The longest run of backticks in the quote, so the fence around it is longer and never closed early. */
function fenceFor(lines: readonly string[]): string {
  let longest = 0;
  for (const l of lines) for (const m of l.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** One message for the agent: each comment with its file, lines, the quoted lines and the words. */
export function reviewMessage(comments: readonly DraftComment[]): string {
  const n = comments.length;
  const parts = [`Review comments on your changes (${n} ${n === 1 ? 'comment' : 'comments'}). Please address each one.`];
  comments.forEach((c, i) => {
    const range = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`;
    const where = `${c.folder}/${c.path}`.replace(/\/+/g, '/');
    const fence = fenceFor(c.quote);
    parts.push(
      [`${i + 1}. ${where}, ${range}${c.side === 'old' ? ' (lines you removed)' : ''}:`, fence, ...c.quote, fence, c.body].join('\n'),
    );
  });
  return parts.join('\n\n');
}

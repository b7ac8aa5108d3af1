/**
 * Each chat's conversation with its agent: messages in order, whether a turn runs, why the last
 * one failed, and the commands waiting for the user. Loaded with `agent.history` when the chat is
 * opened, then kept up to date by the `agent.*` events. The reducer is pure so it is testable alone.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AgentChatOptions, AgentMessage, ApprovalRequest, EventPayload, Response } from '../../shared/contract';
import type { BerthApi } from '../api/types';
import { errorInfo, type ApiErrorInfo } from '../api/errors';
import { without, type ForgetsChats } from './record';

export type ApprovalDecision = 'once' | 'chat' | 'deny';

export interface Conversation {
  /** Oldest first, subagents' messages included (the view nests them under their call). */
  messages: AgentMessage[];
  running: boolean;
  approvals: ApprovalRequest[];
  /** Why the last turn ended early (`agent.state`), or a send, stop or approve that failed. */
  error: ApiErrorInfo | null;
  loaded: boolean;
  loadError: ApiErrorInfo | null;
  sending: boolean;
  stopping: boolean;
  /** Approvals whose answer is on its way to main (their buttons are disabled meanwhile). */
  answering: readonly string[];
  /** "Allow for this chat" is on: its commands run without asking. */
  allowedForChat: boolean;
  /** The chat's own agent options (AGENTS.md on or off, its model). */
  options: AgentChatOptions;
  /** The model's context window in tokens, as main uses it; null when unknown. */
  contextWindow: number | null;
}

export const EMPTY_CONVERSATION: Conversation = {
  messages: [],
  running: false,
  approvals: [],
  error: null,
  loaded: false,
  loadError: null,
  sending: false,
  stopping: false,
  answering: [],
  allowedForChat: false,
  options: { instructions: true, model: null },
  contextWindow: null,
};

export type Conversations = Readonly<Record<string, Conversation>>;

export type AgentAction =
  | { type: 'open'; chatId: string }
  | { type: 'history'; chatId: string; history: Response<'agent.history'> }
  | { type: 'message'; message: AgentMessage }
  | ({ type: 'delta' } & EventPayload<'agent.delta'>)
  | ({ type: 'state' } & EventPayload<'agent.state'>)
  | { type: 'approval'; request: ApprovalRequest }
  | ({ type: 'approvalDone' } & EventPayload<'agent.approvalDone'>)
  | ({ type: 'allowed' } & EventPayload<'agent.allowed'>)
  | { type: 'patch'; chatId: string; patch: Partial<Conversation> }
  | { type: 'forget'; chatId: string };

/** Searched from the end: the message that changes is nearly always one of the last. */
function indexOfMessage(list: readonly AgentMessage[], id: string): number {
  for (let i = list.length - 1; i >= 0; i--) if (list[i]?.id === id) return i;
  return -1;
}

/** Replaces a message by id, or inserts it after the last one not newer than it (usually the end). */
export function upsertMessage(list: readonly AgentMessage[], message: AgentMessage): AgentMessage[] {
  const at = indexOfMessage(list, message.id);
  if (at !== -1) {
    const next = list.slice();
    next[at] = message;
    return next;
  }
  let i = list.length;
  while (i > 0 && (list[i - 1]?.createdAt ?? 0) > message.createdAt) i--;
  return [...list.slice(0, i), message, ...list.slice(i)];
}

function update(state: Conversations, chatId: string, change: (c: Conversation) => Conversation): Conversations {
  const current = state[chatId];
  // Events for a chat that was never opened are dropped: its history is loaded when it is.
  if (!current) return state;
  const next = change(current);
  return next === current ? state : { ...state, [chatId]: next };
}

export function reduceAgent(state: Conversations, action: AgentAction): Conversations {
  switch (action.type) {
    case 'open':
      return state[action.chatId] ? state : { ...state, [action.chatId]: EMPTY_CONVERSATION };
    case 'history': {
      const { messages, running, approvals, allowedForChat } = action.history;
      const options = action.history.options ?? EMPTY_CONVERSATION.options;
      const contextWindow = action.history.contextWindow ?? null;
      return update(state, action.chatId, (c) => ({ ...c, messages, running, approvals, allowedForChat, options, contextWindow, loaded: true, loadError: null }));
    }
    case 'message':
      return update(state, action.message.chatId, (c) => ({ ...c, messages: upsertMessage(c.messages, action.message) }));
    case 'delta':
      return update(state, action.chatId, (c) => {
        const at = indexOfMessage(c.messages, action.messageId);
        const message = c.messages[at];
        // Unknown (its agent.message has not arrived) or finished: the next agent.message carries it.
        if (!message || message.done || action.text === '') return c;
        const messages = c.messages.slice();
        messages[at] = { ...message, content: message.content + action.text };
        return { ...c, messages };
      });
    case 'state':
      return update(state, action.chatId, (c) =>
        action.running
          ? { ...c, running: true, error: null }
          : {
              ...c,
              running: false,
              stopping: false,
              // A turn that ended leaves nothing waiting (main also says so with approvalDone).
              approvals: [],
              answering: [],
              error: action.error ? { code: action.error.code, message: action.error.message, hint: action.error.hint ?? null } : c.error,
            },
      );
    case 'approval':
      return update(state, action.request.chatId, (c) => ({
        ...c,
        approvals: [...c.approvals.filter((a) => a.approvalId !== action.request.approvalId), action.request],
      }));
    case 'approvalDone':
      return update(state, action.chatId, (c) => ({
        ...c,
        approvals: c.approvals.filter((a) => a.approvalId !== action.approvalId),
        answering: c.answering.filter((id) => id !== action.approvalId),
      }));
    case 'allowed':
      return update(state, action.chatId, (c) => ({ ...c, allowedForChat: action.allowed }));
    case 'patch':
      return update(state, action.chatId, (c) => ({ ...c, ...action.patch }));
    case 'forget':
      return action.chatId in state ? without(state, action.chatId) : state;
  }
}

export interface AgentState extends ForgetsChats {
  byChat: Conversations;
  dispatch(action: AgentAction): void;
  /** Loads (again) a chat's conversation: on opening it, and after a reconnect. */
  load(chatId: string): Promise<void>;
  send(chatId: string, text: string): Promise<boolean>;
  stop(chatId: string): Promise<void>;
  /** `reason`: with a denial, why, for the agent. */
  approve(chatId: string, approvalId: string, decision: ApprovalDecision, reason?: string): Promise<void>;
  dismissError(chatId: string): void;
  /** Takes back "Allow for this chat". */
  revokeAllow(chatId: string): Promise<void>;
  /** Changes the chat's own agent options; they apply from its next turn. */
  setOptions(chatId: string, change: Partial<AgentChatOptions>): Promise<void>;
}

export type AgentStore = StoreApi<AgentState>;

export function createAgentStore(api: BerthApi): AgentStore {
  const generations = new Map<string, number>();
  return createStore<AgentState>()((set, get) => {
    const dispatch = (action: AgentAction) => set((s) => ({ byChat: reduceAgent(s.byChat, action) }));
    const patch = (chatId: string, p: Partial<Conversation>) => dispatch({ type: 'patch', chatId, patch: p });
    const conversation = (chatId: string) => get().byChat[chatId] ?? EMPTY_CONVERSATION;

    return {
      byChat: {},
      dispatch,
      forgetChat: (chatId) => dispatch({ type: 'forget', chatId }),

      async load(chatId) {
        const mine = (generations.get(chatId) ?? 0) + 1;
        generations.set(chatId, mine);
        dispatch({ type: 'open', chatId });
        try {
          const history = await api.call('agent.history', { chatId });
          if (generations.get(chatId) === mine) dispatch({ type: 'history', chatId, history });
        } catch (error) {
          if (generations.get(chatId) === mine) patch(chatId, { loaded: true, loadError: errorInfo(error) });
        }
      },

      async send(chatId, text) {
        if (conversation(chatId).sending) return false;
        dispatch({ type: 'open', chatId });
        patch(chatId, { sending: true, error: null });
        try {
          const { message } = await api.call('agent.send', { chatId, text });
          dispatch({ type: 'message', message });
          patch(chatId, { sending: false });
          return true;
        } catch (error) {
          patch(chatId, { sending: false, error: errorInfo(error) });
          return false;
        }
      },

      async stop(chatId) {
        patch(chatId, { stopping: true });
        try {
          const { stopped } = await api.call('agent.stop', { chatId });
          // Nothing was running after all: the turn's end may have crossed the click.
          if (!stopped) patch(chatId, { stopping: false });
        } catch (error) {
          patch(chatId, { stopping: false, error: errorInfo(error) });
        }
      },

      async approve(chatId, approvalId, decision, reason) {
        const c = conversation(chatId);
        if (c.answering.includes(approvalId)) return;
        patch(chatId, { answering: [...c.answering, approvalId] });
        try {
          await api.call('agent.approve', { chatId, approvalId, decision, ...(decision === 'deny' && reason?.trim() ? { reason: reason.trim() } : {}) });
          dispatch({ type: 'approvalDone', chatId, approvalId });
        } catch (error) {
          patch(chatId, { answering: conversation(chatId).answering.filter((id) => id !== approvalId), error: errorInfo(error) });
        }
      },

      dismissError(chatId) {
        patch(chatId, { error: null });
      },

      async setOptions(chatId, change) {
        try {
          patch(chatId, { options: await api.call('agent.setOptions', { chatId, ...change }) });
          // Another model may have another context window.
          if (change.model !== undefined) await get().load(chatId);
        } catch (error) {
          patch(chatId, { error: errorInfo(error) });
        }
      },

      async revokeAllow(chatId) {
        try {
          await api.call('agent.revokeAllow', { chatId });
          dispatch({ type: 'allowed', chatId, allowed: false });
        } catch (error) {
          patch(chatId, { error: errorInfo(error) });
        }
      },
    };
  });
}

/**
 * The OpenAI-compatible API's way into the agent (the browser host's /v1): a conversation maps
 * to one chat by policy/apiChatId, made on first use, and its newest user message starts a turn.
 */
import { BerthError } from '../../../shared/errors.js';
import type { EventHub } from '../events.js';
import { apiChatId, contentText, rawApiChatId, type ApiMessage } from '../policy/apiChatId.js';
import type { SessionService } from '../sessions/sessionService.js';
import type { AgentService, TurnResult } from './agentService.js';

export interface ApiChats {
  /** The chat this conversation continues, created on first use. */
  open(input: { profile: string; sessionId: string | null; messages: readonly ApiMessage[] }): { chatId: string; created: boolean };
  /** Sends the conversation's last user message to the chat's agent. */
  send(chatId: string, text: string): { messageId: string; finished: Promise<TurnResult> };
  stop(chatId: string): Promise<unknown>;
}

export function createApiChats(sessions: SessionService, agent: AgentService, events: EventHub): ApiChats {
  return {
    open({ profile, sessionId, messages }) {
      const raw = rawApiChatId(sessionId, messages);
      if (raw === null) {
        throw new BerthError('invalid_request', sessionId !== null ? 'The session id header is empty, too long or has control characters.' : 'The conversation has no user message.', {
          hint: 'Send at least one user message, and a session id of at most 200 printable characters.',
        });
      }
      const id = apiChatId(profile, raw);
      if (id === null) throw new BerthError('invalid_request', 'A session id for the default profile cannot start with "profile:".', { hint: 'Send another session id.' });
      const firstUser = messages.find((m) => m.role === 'user');
      const { chat, created } = sessions.apiChat(profile, id, contentText(firstUser?.content ?? '').slice(0, 60));
      if (created) events.emit('chats.changed', { chatId: chat.id });
      return { chatId: chat.id, created };
    },
    send(chatId, text) {
      const { message, finished } = agent.send(chatId, text);
      return { messageId: message.id, finished };
    },
    stop: (chatId) => agent.stop(chatId),
  };
}

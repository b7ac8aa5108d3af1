/**
 * Forking a chat at a turn, and trying its last message again in a new chat (README: Review).
 * Shapes only; main validates every request.
 */
import { z } from 'zod';
import { AgentMessage } from './agent.js';

const ChatIdField = z.string().min(1).max(256);

export const forkMethods = {
  /**
   * A new chat with the conversation up to a turn (the user's message `messageId`), each Review
   * copy as it was there, a copy of the chat's home, the same profile and folders, and its own
   * container. 'after': as the turn ended; 'before': just before the message. A chat that writes a
   * folder directly (read-write) is refused, with why.
   */
  'chats.fork': {
    request: z
      .object({ chatId: ChatIdField, messageId: z.string().min(1).max(128), at: z.enum(['after', 'before']).default('after'), title: z.string().trim().min(1).max(200).optional() })
      .strict(),
    response: z.object({ chatId: z.string(), title: z.string() }),
  },
  /** "Try again in a new chat": forks before the chat's last turn and sends the same message there (at most 3 attempts at one message). */
  'chats.retry': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({ chatId: z.string(), title: z.string(), message: AgentMessage }),
  },
} as const;

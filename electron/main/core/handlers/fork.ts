/** chats.fork and chats.retry: a new chat from a turn of another (review/forkChat.ts). */
import { ChatForks } from '../../review/forkChat.js';
import { changed, type HandlerTable } from '../handler.js';
import type { Services } from '../services.js';

export function forkHandlers(s: Services): Pick<HandlerTable, 'chats.fork' | 'chats.retry'> {
  const { store, sessions, review, manager, agent, clock, dataDir } = s;
  const forks = new ChatForks({
    dataDir, store, clock, review,
    requireChat: (chatId) => sessions.requireChat(chatId),
    // Never a warm sandbox: its copies go into work/ folders of their own, mounted when its container is made.
    createChat: (like, title) => sessions.createChat({ profile: like.profile, title, ...(like.image ? { image: like.image } : {}) }),
    homeFor: (profile, key) => manager.homeFor(profile, key),
    running: async (chatId) => (await agent.history(chatId)).running,
    send: (chatId, text) => agent.send(chatId, text).message,
  });
  return {
    'chats.fork': async (req) => {
      const chat = await forks.fork(req.chatId, req.messageId, req.at, req.title);
      return changed(s, chat.id, { chatId: chat.id, title: chat.title });
    },
    'chats.retry': async (req) => {
      const { chat, message } = await forks.retry(req.chatId);
      return changed(s, chat.id, { chatId: chat.id, title: chat.title, message });
    },
  };
}

/** chats.fork and chats.retry: a new chat from a turn of another (forks/chatForks.ts). */
import { changed, type HandlerTable } from '../handler.js';
import type { Services } from '../services.js';

export function forkHandlers(s: Services): Pick<HandlerTable, 'chats.fork' | 'chats.retry'> {
  const { forks } = s;
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

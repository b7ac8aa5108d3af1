/** The fake API's chats.fork and chats.retry: a new chat of the same profile with the same folders. */
import type { ChatView, MethodName, Request, Response } from '../../shared/contract';
import { agentMessage, chatView, freshId } from './fakeViews';

type Handler<M extends MethodName> = (params: Request<M>) => Response<M> | Promise<Response<M>>;

export function forkHandlers(fake: { chats: ChatView[] }, changed: (chatId: string) => void): { 'chats.fork': Handler<'chats.fork'>; 'chats.retry': Handler<'chats.retry'> } {
  const make = (chatId: string, title: string, attemptOf: string | null = null) => {
    const from = fake.chats.find((c) => c.id === chatId)!;
    const c = chatView({ profile: from.profile, title, attachments: from.attachments, createdAt: Date.now() + freshId(), attemptOf });
    fake.chats = [...fake.chats, c];
    changed(c.id);
    return c;
  };
  return {
    'chats.fork': ({ chatId, title }) => {
      const c = make(chatId, title ?? `${fake.chats.find((x) => x.id === chatId)?.title} (fork)`);
      return { chatId: c.id, title: c.title };
    },
    'chats.retry': ({ chatId }) => {
      const from = fake.chats.find((x) => x.id === chatId);
      const c = make(chatId, `${from?.title} (attempt 2)`, from?.attemptOf ?? chatId);
      return { chatId: c.id, title: c.title, message: agentMessage({ chatId: c.id, role: 'user', content: 'again' }) };
    },
  };
}

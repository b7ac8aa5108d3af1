/** chats.* and tasks.*: a chat's life (a warm sandbox taken when one is ready) and its subagents. */
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function chatHandlers(s: Services): Omit<Handlers<'chats'>, 'chats.fork' | 'chats.retry'> & Handlers<'tasks'> {
  const { store, sessions, sandbox, pool, fillPool, deletion, withAttachments } = s;
  return {
    'chats.create': async (req) => {
      const profile = sessions.requireProfile(req.profile);
      // A chat with an image of its own needs a container made for that image.
      const warm = req.image === undefined ? pool.take(profile) : ({ miss: 'off' } as const);
      const chat = withAttachments(sessions.createChat(req, 'chatId' in warm ? warm.chatId : undefined));
      if ('miss' in warm && warm.miss === 'refilling') sandbox.noteCold(chat.id, 'no warm sandbox was ready yet: the profile’s pool is refilling');
      // Said only if the chat starts without that environment: its warm sandbox is then made again.
      if ('chatId' in warm && warm.environment) sandbox.noteCold(chat.id, `its warm sandbox was made from ${warm.environment}, the project environment this profile’s chats last used`);
      fillPool(profile);
      return changed(s, chat.id, chat);
    },
    'chats.rename': async (req) => changed(s, req.chatId, withAttachments(sessions.renameChat(req.chatId, req.title))),
    'chats.list': async (req) => {
      const lastActive = store.agentMessages.lastUserMessageAt();
      return { chats: store.chats.list(req.profile).map((chat) => withAttachments(chat, lastActive)) };
    },
    'chats.delete': async (req) => {
      const chat = store.chats.get(req.chatId);
      if (!chat) return { removed: false };
      await deletion.deleteChat(chat);
      s.environments.forget(chat.id);
      return changed(s, chat.id, { removed: true });
    },
    'tasks.register': async (req) => {
      const chat = sessions.requireChat(req.chatId);
      sessions.registerTask(chat, req);
      const target = sandbox.resolve(chat.id, req.taskId).target;
      return { key: target.kind === 'container' ? target.key : null };
    },
  };
}

/** sandbox.*: commands in a chat's sandbox, its state, and the live use a client watches. */
import type { Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function sandboxHandlers(s: Services): Handlers<'sandbox'> {
  const { sandbox, review, sessions, stats } = s;
  return {
    'sandbox.exec': (req) => sandbox.exec(req).finally(() => review.touched(req.chatId)),
    'sandbox.interrupt': (req) => sandbox.interrupt(req.chatId, req.taskId),
    'sandbox.status': (req) => sandbox.status(req.chatId),
    'sandbox.stop': (req) => sandbox.stop(req.chatId),
    'sandbox.watchStats': async (req, ctx) => {
      sessions.requireChat(req.chatId);
      return { watching: await stats.watch(req.chatId, ctx.client ?? 'berth') };
    },
    'sandbox.unwatchStats': async (req, ctx) => {
      stats.unwatch(req.chatId, ctx.client ?? 'berth');
      return {};
    },
    'sandbox.usage': async (req) => {
      sessions.requireChat(req.chatId);
      return stats.usage(req.chatId);
    },
  };
}

/** ports.*: the ports a chat's sandbox listens on and their forwards to this computer. */
import type { Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function portHandlers(s: Services): Handlers<'ports'> {
  const { ports, sessions } = s;
  return {
    'ports.list': (req) => ports.list(sessions.requireChat(req.chatId).id),
    'ports.open': (req) => ports.open(sessions.requireChat(req.chatId).id, req.port),
    'ports.close': (req) => ports.close(req.chatId, req.port),
  };
}

/** terminal.*: a chat's TTY shells, paced per connected client. */
import type { Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function terminalHandlers(s: Services): Handlers<'terminal'> {
  const { terminals, sessions } = s;
  return {
    'terminal.open': (req, ctx) => terminals.open(req.chatId, req.cols, req.rows, req.replaces, ctx.client),
    'terminal.list': async (req) => ({ terminals: terminals.list(req.chatId) }),
    'terminal.busy': async (req) => ({ terminals: await terminals.busy(sessions.requireChat(req.chatId).id) }),
    'terminal.input': async (req) => {
      terminals.input(req.terminalId, req.data);
      return {};
    },
    'terminal.resize': async (req, ctx) => {
      await terminals.resize(req.terminalId, req.cols, req.rows, ctx.client);
      return {};
    },
    'terminal.replay': async (req, ctx) => ({ data: terminals.replay(req.terminalId, ctx.client) }),
    'terminal.ack': async (req, ctx) => {
      terminals.ack(req.terminalId, req.chars, ctx.client);
      return {};
    },
    'terminal.close': async (req) => {
      terminals.close(req.terminalId);
      return {};
    },
  };
}

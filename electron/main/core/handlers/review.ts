/** review.*: a chat's Review-mode copies: changes, apply, discard, checkpoints, undo, push. */
import type { Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function reviewHandlers(s: Services): Handlers<'review'> {
  const { review, reviewEdits, reviewComments, sessions, agent } = s;
  const chat = (chatId: string) => sessions.requireChat(chatId).id;
  return {
    'review.changes': (req) => review.changes(chat(req.chatId), req.hostPath, req.diffs),
    'review.diff': (req) => review.diff(chat(req.chatId), req.hostPath, req.path),
    'review.apply': (req) => review.apply(chat(req.chatId), req.hostPath, req.mode, req.files),
    'review.discard': (req) => review.discard(chat(req.chatId), req.hostPath),
    'review.refresh': (req) => review.refresh(chat(req.chatId), req.hostPath),
    'review.checkpoint': (req) => review.checkpoint(chat(req.chatId), 'manual', null, req.label),
    'review.checkpoints': (req) => review.checkpoints(chat(req.chatId)),
    'review.restore': (req) => review.restore(chat(req.chatId), req.checkpointId),
    'review.undoTurn': (req) => review.undoTurn(chat(req.chatId), req.messageId),
    'review.undoApply': (req) => review.undoApply(chat(req.chatId), req.hostPath),
    'review.applyLines': (req) => reviewEdits.applyLines(chat(req.chatId), req.hostPath, req.version, req.files),
    'review.conflict': (req) => reviewEdits.conflict(chat(req.chatId), req.hostPath, req.path),
    'review.resolve': (req) => reviewEdits.resolve(chat(req.chatId), req.hostPath, req.path, req.choices),
    'review.comments': (req) => reviewComments.list(chat(req.chatId)),
    'review.comment': (req) => reviewComments.add({ ...req, chatId: chat(req.chatId) }),
    'review.commentClose': async (req) => reviewComments.close(chat(req.chatId), req.id, req.action),
    'review.sendComments': async (req) => {
      // The draft goes to the agent from here: review/ never calls it.
      const chatId = chat(req.chatId);
      const { text, ids } = await reviewComments.draft(chatId);
      const { message } = agent.send(chatId, text);
      reviewComments.markSent(chatId, ids);
      return { sent: ids.length, message };
    },
    'review.push': (req) => review.push(chat(req.chatId), req.hostPath),
  };
}

/** The fake API's review comments (review.comment adds a draft; review.sendComments marks the drafts sent), kept in `comments`. */
import type { MethodName, Request, Response, ReviewComment } from '../../shared/contract';
import { ApiError } from '../api/errors';
import { freshId } from './fakeViews';

type Handler<M extends MethodName> = (params: Request<M>) => Response<M> | Promise<Response<M>>;
type CommentMethod = 'review.comments' | 'review.comment' | 'review.commentClose' | 'review.sendComments';

export function reviewCommentHandlers(comments: ReviewComment[]): { [M in CommentMethod]: Handler<M> } {
  return {
    'review.comments': ({ chatId }) => ({ comments: comments.filter((c) => c.chatId === chatId && c.state !== 'resolved') }),
    'review.comment': ({ chatId, hostPath, path, side, startLine, endLine, body }) => {
      const c: ReviewComment = {
        id: `rc-${freshId()}`, chatId, hostPath, path, side, startLine, endLine, quote: [`line ${startLine}`], body, state: 'draft', outdated: false, createdAt: Date.now(), sentAt: null,
      };
      comments.push(c);
      return c;
    },
    'review.commentClose': ({ id, action }) => {
      const i = comments.findIndex((c) => c.id === id);
      if (i < 0) throw new ApiError('not_found', 'There is no comment like that.');
      if (action === 'delete') comments.splice(i, 1);
      else comments[i] = { ...comments[i]!, state: 'resolved' };
      return {};
    },
    'review.sendComments': ({ chatId }) => {
      const drafts = comments.filter((c) => c.chatId === chatId && c.state === 'draft');
      if (drafts.length === 0) throw new ApiError('invalid_request', 'There are no comments to send.');
      for (const c of drafts) c.state = 'sent';
      return { sent: drafts.length, message: { id: `m-${freshId()}`, chatId, taskId: null, parentCallId: null, role: 'user', content: `Review comments (${drafts.length})`, toolCalls: [], done: true, createdAt: Date.now() } };
    },
  };
}

/**
 * Comments on lines of the chat's changes: a reviewer picks lines in a file's diff and writes a
 * comment; comments gather in a review draft and go to the chat's agent as one message (file, line
 * range, the quoted lines, the comment). They stay on their lines until resolved, and are marked
 * outdated once those lines changed. Shapes only; main validates every request.
 */
import { z } from 'zod';
import { AgentMessage } from './agent.js';

const ChatIdField = z.string().min(1).max(256);

export const ReviewComment = z.object({
  id: z.string(),
  chatId: z.string(),
  hostPath: z.string(),
  path: z.string(),
  /** 'new': lines of the chat's version (added or kept); 'old': lines of the base (removed). */
  side: z.enum(['new', 'old']),
  /** Where the quoted lines are now (1-based, inclusive); where they were when outdated. */
  startLine: z.number().int(),
  endLine: z.number().int(),
  /** The lines as they were when the comment was written. */
  quote: z.array(z.string()),
  body: z.string(),
  /** 'draft': not sent yet; 'sent': the agent has it; 'resolved': done with, no longer shown on the lines. */
  state: z.enum(['draft', 'sent', 'resolved']),
  /** The quoted lines are no longer there (changed or gone). */
  outdated: z.boolean(),
  createdAt: z.number(),
  sentAt: z.number().nullable(),
});
export type ReviewComment = z.infer<typeof ReviewComment>;

export const reviewCommentMethods = {
  /** The chat's comments that are not resolved, each placed on its lines now (or outdated). */
  'review.comments': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({ comments: z.array(ReviewComment) }),
  },
  /** A comment on lines of a changed file; it joins the chat's review draft. */
  'review.comment': {
    request: z
      .object({
        chatId: ChatIdField,
        hostPath: z.string().min(1).max(4096),
        path: z.string().min(1).max(4096),
        side: z.enum(['new', 'old']),
        startLine: z.number().int().positive(),
        endLine: z.number().int().positive(),
        body: z.string().trim().min(1, 'Write a comment first.').max(20_000),
      })
      .strict(),
    response: ReviewComment,
  },
  /** Resolves a comment (done with it), or deletes a draft. */
  'review.commentClose': {
    request: z.object({ chatId: ChatIdField, id: z.string().min(1).max(128), action: z.enum(['resolve', 'delete']) }).strict(),
    response: z.object({}),
  },
  /** Sends the draft's comments to the chat's agent as one message; they become 'sent'. */
  'review.sendComments': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({ sent: z.number().int(), message: AgentMessage }),
  },
} as const;

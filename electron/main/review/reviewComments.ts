/**
 * Review comments on lines of a chat's changes: written on lines of a file of the copy (or of the
 * base, for removed lines), kept in SQLite, placed on their lines again at every look
 * (policy/reviewComments: moved, or outdated once the lines changed), and sent to the chat's agent
 * as one message. The file's lines are read the way every Review read is: from a snapshot of the
 * copy in Berth's tracking repository (ReviewService.onCopy), never through the copy's own files.
 */
import { randomUUID } from 'node:crypto';
import { BerthError } from '../../../shared/errors.js';
import type { ReviewComment } from '../../../shared/reviewComments.js';
import type { Clock } from '../base/clock.js';
import { anchorComment, reviewMessage } from '../policy/reviewComments.js';
import type { ReviewService } from './reviewService.js';

type Stored = Omit<ReviewComment, 'outdated'>;

/** The table's repository (store/reviewCommentsRepo), as this module uses it. */
export interface CommentStore {
  open(chatId: string): Stored[];
  get(chatId: string, id: string): Stored | null;
  insert(c: Stored): void;
  setState(chatId: string, ids: readonly string[], state: Stored['state'], sentAt: number | null): void;
  delete(chatId: string, id: string): void;
}

export interface ReviewCommentsDeps {
  review: ReviewService;
  store: CommentStore;
  clock: Clock;
  /** Where the chat sees a folder (/workspace/...), for the message; the host path when it has none. */
  folderOf: (chatId: string, hostPath: string) => string;
}

const MAX_LINES = 2000;

export class ReviewComments {
  constructor(private readonly deps: ReviewCommentsDeps) {}

  /** The file's lines in the copy now ('new') or in its base ('old'); null when the file is not there. */
  private lines(chatId: string, hostPath: string, file: string, side: 'new' | 'old'): Promise<string[] | null> {
    return this.deps.review.onCopy(chatId, hostPath, async (copy) => {
      const tree = side === 'new' ? (await copy.snapshot()).tree : copy.meta.baseTree;
      if (!(await copy.inTree(tree, [file])).has(file)) return null;
      const text = (await copy.blob(`${tree}:${file}`)).toString('utf8');
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      return lines;
    });
  }

  async add(req: { chatId: string; hostPath: string; path: string; side: 'new' | 'old'; startLine: number; endLine: number; body: string }): Promise<ReviewComment> {
    if (req.endLine < req.startLine || req.endLine - req.startLine >= MAX_LINES) {
      throw new BerthError('invalid_request', `A comment covers 1 to ${MAX_LINES.toLocaleString('en')} lines; lines ${req.startLine}-${req.endLine} were chosen.`, { hint: 'Choose the lines again.' });
    }
    const lines = await this.lines(req.chatId, req.hostPath, req.path, req.side);
    const quote = lines?.slice(req.startLine - 1, req.endLine) ?? [];
    if (quote.length !== req.endLine - req.startLine + 1) {
      throw new BerthError('invalid_request', `"${req.path}" has no lines ${req.startLine}-${req.endLine} in the chat's ${req.side === 'new' ? 'copy' : 'base'} now.`, { hint: 'Reload the Changes panel and choose the lines again.' });
    }
    const c: Stored = {
      id: randomUUID(), chatId: req.chatId, hostPath: req.hostPath, path: req.path, side: req.side, startLine: req.startLine, endLine: req.endLine,
      quote, body: req.body, state: 'draft', createdAt: this.deps.clock.now(), sentAt: null,
    };
    this.deps.store.insert(c);
    return { ...c, outdated: false };
  }

  /** The chat's open comments, each on its lines now. */
  async list(chatId: string): Promise<{ comments: ReviewComment[] }> {
    const open = this.deps.store.open(chatId);
    const files = new Map<string, string[] | null>();
    const out: ReviewComment[] = [];
    for (const c of open) {
      const key = `${c.hostPath}\0${c.path}\0${c.side}`;
      if (!files.has(key)) files.set(key, await this.lines(chatId, c.hostPath, c.path, c.side).catch(() => null));
      const anchor = anchorComment(c.quote, c.startLine, files.get(key) ?? null);
      out.push({ ...c, startLine: anchor.startLine, endLine: anchor.startLine + c.quote.length - 1, outdated: anchor.outdated });
    }
    return { comments: out };
  }

  close(chatId: string, id: string, action: 'resolve' | 'delete'): Record<string, never> {
    const c = this.deps.store.get(chatId, id);
    if (!c) throw new BerthError('not_found', 'That comment does not exist (any more).', { hint: 'Reload the Changes panel.' });
    if (action === 'delete') this.deps.store.delete(chatId, id);
    else this.deps.store.setState(chatId, [id], 'resolved', null);
    return {};
  }

  /** The draft as one message to the chat's agent, and the comments in it (sent by the caller: review/ never calls the agent). */
  async draft(chatId: string): Promise<{ text: string; ids: string[] }> {
    const { comments } = await this.list(chatId);
    const drafts = comments.filter((c) => c.state === 'draft');
    if (drafts.length === 0) throw new BerthError('invalid_request', 'There are no comments to send.', { hint: 'Choose lines in a file’s diff and write a comment first.' });
    return { text: reviewMessage(drafts.map((c) => ({ ...c, folder: this.deps.folderOf(chatId, c.hostPath) }))), ids: drafts.map((c) => c.id) };
  }

  /** The draft's comments were sent: they become 'sent'. */
  markSent(chatId: string, ids: string[]): void {
    this.deps.store.setState(chatId, ids, 'sent', this.deps.clock.now());
  }
}

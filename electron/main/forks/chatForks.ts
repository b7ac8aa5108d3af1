/**
 * Fork a chat at a turn (README: Review, "Fork from here"): a new chat of the same profile with
 * the conversation up to that turn, a copy of each Review copy as it was there (the turn's
 * checkpoint, review/forkCopy.ts), a copy of the chat's home, and the same folders. Its container
 * is its own, made when it is first used, from its own attachments like any chat's.
 * "Try again in a new chat" forks before the last turn and sends the same message again.
 * It sits above review/ and agent/ and calls both down: review/ never calls the agent.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { attemptFamily, attemptRoot } from '../../../shared/attempts.js';
import { BerthError } from '../../../shared/errors.js';
import type { AgentChatOptions, AgentMessage, AttachMode } from '../../../shared/contract.js';
import type { Clock } from '../base/clock.js';
import type { AgentService } from '../agent/agentService.js';
import { qualifyTaskId } from '../policy/containerKey.js';
import { forkCut, forkRefusal, lastTurn, type ForkAt } from '../policy/forkPolicy.js';
import { CheckpointStore } from '../review/checkpointStore.js';
import { forkCopy } from '../review/forkCopy.js';
import { copyTreeLinkSafe } from '../review/linkSafeCopy.js';
import type { ReviewService } from '../review/reviewService.js';
import type { RemoteHomes } from '../sandbox/remoteHomeCopy.js';
import type { SandboxContainers } from '../sandbox/sandboxContainers.js';
import type { SessionService } from '../sessions/sessionService.js';

/** At most this many chats try one message (the original and two more): each is a container and a copy. */
export const MAX_ATTEMPTS = 3;

/** A chat as the store keeps it. */
export interface ChatRecord {
  id: string;
  profile: string;
  title: string;
  image: string | null;
}

interface Attachment {
  chatId: string;
  hostPath: string;
  readOnly: boolean;
  mode: AttachMode;
  provenance: string;
  attachedAt: number;
}

/** The parts of Berth's store a fork reads and writes. */
export interface ForkStore {
  attachments: { forChat(chatId: string): Attachment[]; upsert(a: Attachment & { provenance: 'session' }): void };
  agentMessages: { forChat(chatId: string): { message: AgentMessage; results: Record<string, string> }[]; save(m: AgentMessage, results?: Record<string, string>): void };
  agentChatOptions: { get(chatId: string): AgentChatOptions; set(chatId: string, options: AgentChatOptions): void };
  chats: { list(profile?: string): ChatRecord[]; delete(chatId: string): void };
  chatForks: { record(f: { chatId: string; forkedFrom: string; attemptOf: string | null }): void; get(chatId: string): { attemptOf: string | null } | undefined };
}

export interface ForkDeps {
  dataDir: string;
  store: ForkStore;
  clock: Clock;
  review: ReviewService;
  sessions: Pick<SessionService, 'requireChat' | 'createChat' | 'requireProfile'>;
  /** Where a chat's home is (SandboxContainers.homeFor). */
  homes: Pick<SandboxContainers, 'homeFor'>;
  /** A home that is a volume of a remote engine, copied there (sandbox/remoteHomeCopy). */
  remoteHomes: Pick<RemoteHomes, 'copy'>;
  /** Whether a turn runs (a running chat forks only at an ended turn), and Try again's message sent. */
  agent: Pick<AgentService, 'history' | 'send'>;
}

function refused(why: string, hint: string): BerthError {
  return new BerthError('invalid_request', why, { hint });
}

/** The owner of a folder's top (the sandbox user Berth handed it to), or null when it is Berth's own. */
function ownerOf(dir: string): { uid: number; gid: number } | null {
  try {
    const st = fs.lstatSync(dir);
    return st.uid === process.getuid?.() ? null : { uid: st.uid, gid: st.gid };
  } catch {
    return null;
  }
}

export class ChatForks {
  private readonly checkpoints: CheckpointStore;

  constructor(private readonly deps: ForkDeps) {
    this.checkpoints = new CheckpointStore(path.join(deps.dataDir, 'review', 'checkpoints'), deps.clock);
  }

  async fork(chatId: string, messageId: string, at: ForkAt, title?: string, attemptOf: string | null = null): Promise<ChatRecord> {
    const { store, review } = this.deps;
    const chat = this.deps.sessions.requireChat(chatId);
    const folders = store.attachments.forChat(chat.id).filter((a) => a.provenance === 'session');
    const refusal = forkRefusal(folders);
    if (refusal) throw refused(refusal, 'Attach that folder in Review mode instead (a private copy per chat), then fork.');
    const messages = store.agentMessages.forChat(chat.id);
    const stored = this.checkpoints.load(chat.id);
    const cut = forkCut(messages.map((m) => m.message), stored, messageId, at, (await this.deps.agent.history(chat.id)).running);
    if (!cut.ok) throw refused(cut.why, 'Pick a turn of this chat that has ended.');

    // Never a warm sandbox: its copies go into work/ folders of their own, mounted when its container is made.
    const fork = this.deps.sessions.createChat({ profile: chat.profile, title: title ?? `${chat.title} (fork)`, ...(chat.image ? { image: chat.image } : {}) });
    try {
      store.chatForks.record({ chatId: fork.id, forkedFrom: chat.id, attemptOf });
      const copyIds = new Map<string, string>();
      for (const a of folders) {
        if (a.mode === 'review') {
          if (!review.copyFor(chat.id, a.hostPath)) continue;
          // In the original's Review queue: the fork reads its copy's shadow and repository while
          // no checkpoint or listing of the original writes them.
          const { from, made } = await review.onCopy(chat.id, a.hostPath, async (from) => ({
            from,
            made: await forkCopy(from, {
              dir: review.copyDirFor(fork.id, a.hostPath), chatId: fork.id, commit: cut.commitFor(from.meta.copyId),
              owner: ownerOf(from.workDir), now: this.deps.clock.now(),
            }),
          }));
          copyIds.set(from.meta.copyId, made.meta.copyId);
        }
        store.attachments.upsert({ chatId: fork.id, hostPath: a.hostPath, readOnly: a.readOnly, mode: a.mode, provenance: 'session', attachedAt: this.deps.clock.now() });
      }
      // The checkpoints up to the cut, naming the fork's copies: Undo this turn works in the fork too.
      this.checkpoints.save(fork.id, stored.slice(0, cut.checkpoints).map((cp) => ({
        ...cp, id: randomUUID(), chatId: fork.id,
        commits: renameKeys(cp.commits, copyIds),
        ...(cp.endCommits ? { endCommits: renameKeys(cp.endCommits, copyIds) } : {}),
      })));
      const renamed = new Map<string, string>();
      for (const { message, results } of messages.slice(0, cut.keep)) {
        const id = randomUUID();
        renamed.set(message.id, id);
        store.agentMessages.save({ ...message, id, chatId: fork.id }, results);
      }
      store.agentChatOptions.set(fork.id, store.agentChatOptions.get(chat.id));
      const home = this.deps.homes.homeFor(chat.profile, qualifyTaskId(chat.profile, chat.id));
      await copyTreeLinkSafe(home, this.deps.homes.homeFor(chat.profile, qualifyTaskId(chat.profile, fork.id)), ownerOf(home));
      const profile = this.deps.sessions.requireProfile(chat.profile);
      await this.deps.remoteHomes.copy({
        profile, fromKey: qualifyTaskId(chat.profile, chat.id), toKey: qualifyTaskId(chat.profile, fork.id), toChatId: fork.id, image: chat.image ?? profile.settings.image,
      });
      return fork;
    } catch (error) {
      this.forget(fork);
      throw error;
    }
  }

  /** Forks before the chat's last turn and sends its message again there. */
  async retry(chatId: string): Promise<{ chat: ChatRecord; message: AgentMessage }> {
    const chat = this.deps.sessions.requireChat(chatId);
    const lineage = (c: ChatRecord) => ({ ...c, attemptOf: this.deps.store.chatForks.get(c.id)?.attemptOf ?? null });
    // Counted by the recorded lineage: a renamed attempt still counts, a chat that only shares the title does not.
    const me = lineage(chat);
    const attemptsSoFar = attemptFamily(this.deps.store.chats.list(chat.profile).map(lineage), me).length;
    if (attemptsSoFar >= MAX_ATTEMPTS) {
      throw refused(`This message has been tried in ${attemptsSoFar} chats already, the most Berth runs at once.`, 'Close an attempt you do not want (delete its chat), then try again.');
    }
    const last = lastTurn(this.deps.store.agentMessages.forChat(chat.id).map((m) => m.message));
    if (!last) throw refused('This chat has no message to try again.', 'Send a message first.');
    const fork = await this.fork(chat.id, last.id, 'before', `${attemptBase(chat.title)} (attempt ${attemptsSoFar + 1})`, attemptRoot(me));
    return { chat: fork, message: this.deps.agent.send(fork.id, last.content).message };
  }

  private forget(fork: ChatRecord): void {
    const { store, review } = this.deps;
    const paths = store.attachments.forChat(fork.id).map((a) => a.hostPath);
    store.chats.delete(fork.id);
    review.removeChat(fork.id, paths);
    this.checkpoints.remove(fork.id);
    fs.rmSync(this.deps.homes.homeFor(fork.profile, qualifyTaskId(fork.profile, fork.id)), { recursive: true, force: true });
  }
}

function renameKeys(record: Record<string, string>, names: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).flatMap(([k, v]) => (names.has(k) ? [[names.get(k)!, v]] : [])));
}

/** A chat's title without its "(attempt N)", to name the next attempt (the count is the lineage's). */
function attemptBase(title: string): string {
  return title.replace(/ \(attempt \d+\)$/, '');
}

/**
 * Deleting a chat or a profile: what runs for it stops, its records go, then its containers,
 * networks and homes. The records go first: if Berth dies midway, or the engine cannot be
 * reached, the orphan sweep removes the containers later; the homes go now either way.
 */
import type { MainEvents } from '../events.js';
import type { ChatFolders } from '../folders/chatFolders.js';
import type { ReviewService } from '../review/reviewService.js';
import type { WarmPool } from './warmPool.js';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { Engine } from '../engine/dockerEngine.js';
import { qualifyTaskId } from '../policy/containerKey.js';
import { folderNameFor, networkNameFor } from '../policy/names.js';
import type { SessionService } from '../sessions/sessionService.js';
import type { ChatRecord, Store } from '../store/repositories.js';
import type { SandboxContainers } from './sandboxContainers.js';

/**
 * Chats of a deleted profile removed at once. Each is mostly the engine's work (its container,
 * then an allowlist sandbox's own network and the proxy's endpoint on it), which Docker does in
 * parallel only in part: 40 allowlist chats went in 16.1 s one at a time, 8.7 s four at a time,
 * 8.6 s eight at a time (bench/README.md).
 */
export const PROFILE_DELETE_CONCURRENCY = 4;

export interface DeletionServiceDeps {
  store: Store;
  sessions: SessionService;
  containers: SandboxContainers;
  engine: Engine;
  dataDir: string;
  /** Told (`chat.ending`, waited for) so that what runs for the chat above the sandbox (its agent turns, its terminals) ends before it goes. */
  mainEvents: MainEvents;
  /** The chat's port forwards close with it (ports/portService.ts). */
  ports: { closeChat(chatId: string): Promise<void> };
  /** The chat's own egress allowances go with it, and a deleted profile's proxy (egress/egressService.ts). */
  egress: { forgetChat(chatId: string): Promise<void>; removeProxy(profile: string): Promise<void> };
  /** The profile's warm sandboxes and their reservations go with it (`drop`). */
  pool: Pick<WarmPool, 'drop'>;
  /** The chat's Review-mode copies go with it (`removeChat`, given the host folders they were of). */
  review: Pick<ReviewService, 'removeChat'>;
  /** The chat's slot folder goes with it, if it took a warm sandbox (`removeSlot`). */
  folders: Pick<ChatFolders, 'removeSlot'>;
}

export class DeletionService {
  private disposed = false;

  constructor(private readonly deps: DeletionServiceDeps) {}

  async deleteChat(chat: ChatRecord): Promise<void> {
    this.assertOpen();
    await this.removeChat(chat);
  }

  private async removeChat(chat: ChatRecord): Promise<void> {
    const { store, sessions, containers } = this.deps;
    await this.deps.mainEvents.emitAndWait('chat.ending', { chatId: chat.id });
    await this.deps.ports.closeChat(chat.id);
    await this.deps.egress.forgetChat(chat.id).catch(() => undefined);
    // Read before the rows go (deleting the chat deletes its attachments).
    const reviewPaths = store.attachments.forChat(chat.id).filter((a) => a.mode === 'review').map((a) => a.hostPath);
    const taskIds = store.transaction(() => {
      const ids = store.tasks.deleteForChat(chat.id);
      for (const q of [...ids, ...sessions.ownedQualifiedIds(chat)]) store.cwd.clear(q);
      store.chats.delete(chat.id);
      return ids;
    });
    this.deps.review.removeChat(chat.id, reviewPaths);
    this.deps.folders.removeSlot(chat.profile, chat.id);
    const local = sessions.requireProfile(chat.profile).settings.backend === 'local';
    const keys = local ? [] : await containers.removeForChat(chat.id).catch(() => [] as string[]);
    for (const key of new Set([...keys, qualifyTaskId(chat.profile, chat.id), ...taskIds])) {
      fs.rmSync(containers.homeFor(chat.profile, key), { recursive: true, force: true });
    }
  }

  /**
   * Deletes the profile with its chats; returns how many chats went. `onChatRemoved` runs as each
   * chat goes (main tells the page, whose list then shows how many are left). The chats go
   * PROFILE_DELETE_CONCURRENCY at a time; if one cannot go, no further one starts, the ones under
   * way finish, and the error says why, with the profile and its remaining chats still there.
   */
  async deleteProfile(name: string, onChatRemoved: (chatId: string) => void = () => undefined): Promise<number> {
    this.assertOpen();
    const { store, sessions, containers, engine, dataDir } = this.deps;
    const profile = sessions.requireProfile(name);
    if (profile.name === 'default') {
      throw new BerthError('invalid_request', 'The default profile cannot be deleted.', { hint: 'Delete its chats instead.' });
    }
    const chats = store.chats.list(profile.name);
    await this.deps.pool.drop(profile.name);
    const queue = [...chats];
    const errors: unknown[] = [];
    const worker = async () => {
      while (errors.length === 0) {
        const chat = queue.shift();
        if (!chat) return;
        try {
          await this.removeChat(chat);
          onChatRemoved(chat.id);
        } catch (error) {
          errors.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PROFILE_DELETE_CONCURRENCY, chats.length) }, worker));
    if (errors.length > 0) throw errors[0];
    // An engine that does not answer (this one, or any other Berth has talked to) does not keep
    // the profile, as for a chat: its records go now, its containers at a sweep that reaches it.
    await containers.removeForProfile(profile.name).catch((error: unknown) => {
      if (!(error instanceof BerthError && error.code === 'engine_unreachable')) throw error;
    });
    store.profiles.delete(profile.name);
    await this.deps.egress.removeProxy(profile.name).catch(() => undefined);
    if (profile.settings.egress === 'open') await engine.removeNetwork(networkNameFor(profile.name)).catch(() => undefined);
    fs.rmSync(path.join(dataDir, 'profiles', folderNameFor(profile.name)), { recursive: true, force: true });
    return chats.length;
  }

  /** Deletions not yet begun are refused once the core is shutting down; one under way finishes. */
  dispose(): void {
    this.disposed = true;
  }

  private assertOpen(): void {
    if (this.disposed) throw new BerthError('internal', 'Berth is shutting down.');
  }
}

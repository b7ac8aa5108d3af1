/** Profiles and chats: their records, views, and the task lookup that container keys need. */
import { resolveProvider, type ResolvedProvider } from '../../../shared/agentProvider.js';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_PROFILE, ProfileSettings, type ChatView, type ParsedRequest, type ProfileView,
} from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { profileDefaultKey, qualifyTaskId, type TaskLookup } from '../policy/containerKey.js';
import { overlapProblem } from '../policy/attachmentOverlap.js';
import { nextChatNumber } from '../policy/chatTitle.js';
import { staticMountsProblem, staticTargetProblem } from '../policy/mountPlan.js';
import { mountedFolders } from './mountedFolders.js';
import { networkNameFor } from '../policy/names.js';
import type { ChatRecord, ProfileRecord, Store } from '../store/repositories.js';
import type { Clock } from '../base/clock.js';

export function boundaryText(settings: ProfileSettings): string {
  if (settings.backend === 'local') {
    return 'No sandbox: commands run directly on this computer with your permissions and can read and change anything you can.';
  }
  const net = settings.egress === 'none'
    ? 'no network at all'
    : settings.egress === 'allowlist'
      ? `no network of its own: only HTTP and HTTPS to the ${settings.egressAllow.length} allowed hosts, through Berth's proxy (never this computer's services)`
      : "its own network, where chats cannot reach each other (but can reach the internet and services listening on all of this computer's interfaces)";
  const scope = settings.containerScope === 'chat' ? 'one container per chat' : 'one container shared by all chats of this profile';
  return `Docker sandbox: ${scope}, non-root with no capabilities, ${net}.`;
}

export class SessionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Resolves a host folder through symlinks and refuses sensitive ones (workspace/). */
    private readonly resolveFolder: (hostPath: string) => string,
  ) {}

  /** Creates the default profile on first start, with Berth's own base image (built on first use). */
  ensureDefaultProfile(image: string): void {
    if (!this.store.profiles.get(DEFAULT_PROFILE)) {
      // One warm sandbox: a first chat on a new install answers at once (sandbox/warmPool.ts).
      this.store.profiles.insert({ name: DEFAULT_PROFILE, settings: ProfileSettings.parse({ image, warmPool: 1 }), createdAt: this.clock.now() });
    }
  }

  profileView(p: ProfileRecord): ProfileView {
    return {
      name: p.name,
      settings: p.settings,
      networkName: p.settings.backend === 'docker' && p.settings.egress === 'open' ? networkNameFor(p.name) : null,
      boundary: boundaryText(p.settings),
      createdAt: p.createdAt,
    };
  }

  requireProfile(name: string): ProfileRecord {
    const p = this.store.profiles.get(name);
    if (!p) throw new BerthError('not_found', `There is no profile named "${name}".`, { hint: 'Create it first, or pick an existing profile.' });
    return p;
  }

  /** The provider a profile's agent talks to: its own, or the one it shares (shared/agentProvider). */
  providerOf(name: string): ResolvedProvider {
    const r = resolveProvider(this.requireProfile(name), (n) => this.store.profiles.get(n) ?? undefined);
    if ('missing' in r) {
      throw new BerthError('provider_not_configured', `The profile "${name}" uses the provider of the profile "${r.missing}", which no longer exists.`, {
        hint: 'Choose its own provider, or another profile’s, in its settings.',
      });
    }
    return r;
  }

  createProfile(req: ParsedRequest<'profiles.create'>): ProfileView {
    const { name, ...rest } = req;
    if (this.store.profiles.get(name)) {
      throw new BerthError('already_exists', `A profile named "${name}" already exists.`, { hint: 'Pick another name.' });
    }
    const settings = this.checkedSettings(ProfileSettings.parse(rest));
    const network = networkNameFor(name);
    const clash = this.store.profiles.list().find((p) => networkNameFor(p.name) === network);
    if (clash) {
      // Two profiles on one network would share its lifetime and labels.
      throw new BerthError('already_exists', `The name "${name}" is too close to the existing profile "${clash.name}": both would use the Docker network ${network}.`, {
        hint: 'Pick a name that differs in more than case or punctuation.',
      });
    }
    const record = { name, settings, createdAt: this.clock.now() };
    this.store.profiles.insert(record);
    return this.profileView(record);
  }

  /** Changes a profile's settings; its containers are recreated at their next use to match. */
  updateProfile(req: ParsedRequest<'profiles.update'>): ProfileView {
    const existing = this.requireProfile(req.name);
    // The agent's settings merge field by field: the profile form sends the fields it shows, and
    // replacing the whole object dropped the ones it does not (MCP servers, context window).
    const agent = req.settings.agent ? { ...existing.settings.agent, ...req.settings.agent } : existing.settings.agent;
    const settings = this.checkedSettings(ProfileSettings.parse({ ...existing.settings, ...req.settings, agent }));
    this.store.profiles.updateSettings(existing.name, settings);
    return this.profileView({ ...existing, settings });
  }

  /** Profile mounts pass the same checks as a chat's folders, and are kept by their real path. */
  private checkedSettings(settings: ProfileSettings): ProfileSettings {
    const nesting = staticMountsProblem(settings.staticMounts);
    if (nesting) throw new BerthError('workspace_refused', `The profile mounts cannot be used: ${nesting}`, { hint: 'Give each profile mount its own path, such as /data and /docs.' });
    const mounted = mountedFolders(this.store);
    const staticMounts = settings.staticMounts.map((m) => {
      const problem = staticTargetProblem(m.target);
      if (problem) throw new BerthError('workspace_refused', `The profile mount cannot be used: ${problem}`, { hint: 'Pick another path, such as /data.' });
      const source = this.resolveFolder(m.source);
      const overlap = overlapProblem({ hostPath: source, readOnly: m.readOnly }, mounted);
      if (overlap) throw new BerthError('workspace_refused', `The profile mount "${m.source}" cannot be used: ${overlap}`, { hint: 'Mount it read-only, or pick a folder no chat uses.' });
      return { ...m, source };
    });
    return { ...settings, staticMounts };
  }

  renameChat(chatId: string, title: string): ChatRecord {
    const chat = this.requireChat(chatId);
    this.store.chats.rename(chat.id, title);
    return { ...chat, title };
  }

  requireChat(chatId: string): ChatRecord {
    const chat = this.store.chats.get(chatId);
    if (!chat) throw new BerthError('not_found', 'That chat no longer exists.', { hint: 'It may have been deleted in another window; pick another chat.' });
    return chat;
  }

  /**
   * "Chat N" counted per profile, as the list groups chats (a profile's first chat is Chat 1),
   * N never given before in that profile (a deleted chat's number stays used).
   */
  private nextChatTitle(profile: string): string {
    const key = `chats.last_number.${profile}`;
    const titles = this.store.chats.list().flatMap((c) => (c.profile === profile ? [c.title] : []));
    const n = nextChatNumber(Number(this.store.settings.get(key) ?? 0) || 0, titles);
    this.store.settings.set(key, String(n));
    return `Chat ${n}`;
  }

  /** `id`: a chat id reserved for a warm sandbox (sandbox/warmPool.ts); a new one otherwise. */
  createChat(req: ParsedRequest<'chats.create'>, id: string = randomUUID()): ChatRecord {
    this.requireProfile(req.profile);
    const chat: ChatRecord = {
      id,
      profile: req.profile,
      title: req.title?.trim() || this.nextChatTitle(req.profile),
      image: req.image ?? null,
      createdAt: this.clock.now(),
    };
    this.store.chats.insert(chat);
    return chat;
  }

  /**
   * The chat an API client's conversation continues (its id derived by policy/apiChatId), made
   * on first use. An id held by a chat of another profile is refused, never shared.
   */
  apiChat(profile: string, chatId: string, title: string): { chat: ChatRecord; created: boolean } {
    this.requireProfile(profile);
    const existing = this.store.chats.get(chatId);
    if (existing) {
      if (existing.profile !== profile) {
        throw new BerthError('already_exists', 'That conversation id belongs to a chat of another profile.', { hint: 'Send another session id.' });
      }
      return { chat: existing, created: false };
    }
    if (this.store.tasks.get(qualifyTaskId(profile, chatId))) {
      throw new BerthError('already_exists', 'That conversation id is used by a subagent.', { hint: 'Send another session id.' });
    }
    const chat: ChatRecord = { id: chatId, profile, title: title.trim().slice(0, 200) || 'API chat', image: null, createdAt: this.clock.now() };
    this.store.chats.insert(chat);
    return { chat, created: true };
  }

  chatView(chat: ChatRecord, attachments: ChatView['attachments'], lastActiveAt = chat.createdAt): ChatView {
    return { id: chat.id, profile: chat.profile, title: chat.title, image: chat.image, createdAt: chat.createdAt, lastActiveAt: Math.max(chat.createdAt, lastActiveAt), attachments,
      attemptOf: this.store.chatForks.get(chat.id)?.attemptOf ?? null };
  }

  /**
   * Finds a chat or a registered task by profile-qualified id. A chat is a root task whose
   * own image, if any, is its override.
   */
  taskLookup(profile: string): TaskLookup {
    const prefix = qualifyTaskId(profile, '');
    return (qualifiedId) => {
      const task = this.store.tasks.get(qualifiedId);
      if (task) return { parentId: task.parentId, override: task.override };
      if (!qualifiedId.startsWith(prefix)) return undefined;
      const chat = this.store.chats.get(qualifiedId.slice(prefix.length));
      if (!chat || chat.profile !== profile) return undefined;
      return { parentId: null, override: chat.image ? { image: chat.image } : null };
    };
  }

  /** Records a subagent (or other task) of a chat. */
  registerTask(chat: ChatRecord, req: ParsedRequest<'tasks.register'>): void {
    // A task belongs to one chat: it can never take another chat's id or another chat's task.
    const existing = this.store.tasks.get(qualifyTaskId(chat.profile, req.taskId));
    if (req.taskId === chat.id || this.store.chats.get(req.taskId) || (existing && existing.chatId !== chat.id)) {
      throw new BerthError('already_exists', `The task id "${req.taskId}" is already used by another chat or task.`, { hint: 'Pick a new id for the subagent.' });
    }
    if (req.parentId !== undefined && req.parentId !== chat.id) {
      const parent = this.store.tasks.get(qualifyTaskId(chat.profile, req.parentId));
      if (!parent || parent.chatId !== chat.id) {
        throw new BerthError('not_found', `The parent task "${req.parentId}" is not part of this chat.`, { hint: "Use the chat's id, or a task registered for this chat." });
      }
    }
    const override = req.image || req.cwd ? { image: req.image ?? null, cwd: req.cwd ?? null } : null;
    this.store.tasks.upsert({
      qualifiedId: qualifyTaskId(chat.profile, req.taskId),
      profile: chat.profile,
      chatId: chat.id,
      rawId: req.taskId,
      parentId: req.parentId ?? null,
      override,
    });
  }

  /** The qualified ids whose cwd records and homes belong to this chat. */
  ownedQualifiedIds(chat: ChatRecord): string[] {
    return [qualifyTaskId(chat.profile, chat.id)];
  }

  sharedKey(profile: string): string {
    return profileDefaultKey(profile);
  }
}

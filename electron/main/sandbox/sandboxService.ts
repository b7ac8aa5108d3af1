/** Running a chat's commands: which container, what is mounted, where the command starts. */
import type { ExecResult, ParsedRequest, SandboxStatus } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { Disposable, EventHub, MainEvents } from '../events.js';
import { isDirectory } from '../base/isDirectory.js';
import { defaultContainerCwd, forgetsRecordedCwd, hostPathToContainer, resolveCommandCwd } from '../policy/commandCwd.js';
import { SANDBOX_HOME } from '../policy/containerSpec.js';
import { qualifyTaskId, resolveContainerKey, type ContainerTarget } from '../policy/containerKey.js';
import { planMounts, usesSlot, visibleFolders, type MountPlanInput, type PlannedMount } from '../policy/mountPlan.js';
import type { ChatFolders, FolderChange, MountShape } from '../folders/chatFolders.js';
import type { SessionService } from '../sessions/sessionService.js';
import type { ChatRecord, ProfileRecord, Store } from '../store/repositories.js';
import { chatSandboxSettings, type WarmEnvironment } from '../store/chatEnvironments.js';
import type { Clock } from '../base/clock.js';
import { FOLDER_MESSAGES } from '../messages.js';
import { runLocal } from './localRunner.js';
import type { SandboxLease, SandboxContainers, SandboxRequest } from './sandboxContainers.js';

/** Said when a change of folders replaces the running container (main's messages). */
export const RECREATE_NOTICE = FOLDER_MESSAGES.recreateNotice;

export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
export const OUTPUT_HEAD_BYTES = 32 * 1024;
export const OUTPUT_TAIL_BYTES = 32 * 1024;

export interface ResolvedTarget {
  chat: ChatRecord;
  profile: ProfileRecord;
  taskId: string;
  target: ContainerTarget;
}

export class SandboxService {
  /**
   * Orders what clients hear of sandboxes: a status is numbered when main starts reading it, a
   * progress event when it happens. A status read before a change but answered after it (a
   * `sandbox.status` call the engine slowed) has the lower number, and a client keeps the newer
   * (renderer/stores/sandbox.ts). Per process: no page outlives the main process it talks to.
   */
  private revision = 0;

  constructor(
    private readonly store: Store,
    private readonly sessions: SessionService,
    private readonly manager: SandboxContainers,
    private readonly events: EventHub,
    private readonly clock: Clock,
    private readonly homeDir: string,
    /** The chat's folders: what its container's mounts are planned from (folders/chatFolders.ts). */
    private readonly folders: ChatFolders,
    /** Tells terminal/ (which subscribes) when a chat's folders changed under its running shells; hears review/ use a chat's copies. */
    private readonly mainEvents: MainEvents,
  ) {
    // Review reads and writes its copies here: a remote sandbox's are brought back first.
    mainEvents.on('copies.willUse', ({ chatId }) => this.pullRemoteCopies(chatId));
  }

  /** The project environment's workspaceFolder, where the chat's terminals and the agent start. */
  private environmentDir(r: ResolvedTarget): string | null {
    const owner = this.ownerChatId(r);
    return owner ? (chatSandboxSettings(this.store.settings, owner)?.workingDir ?? null) : null;
  }

  resolve(chatId: string, taskId?: string): ResolvedTarget {
    const chat = this.sessions.requireChat(chatId);
    const profile = this.sessions.requireProfile(chat.profile);
    const id = taskId ?? chat.id;
    if (id !== chat.id) {
      // A task runs only on behalf of the chat that registered it, never another chat's.
      const task = this.store.tasks.get(qualifyTaskId(profile.name, id));
      if (!task || task.chatId !== chat.id) {
        throw new BerthError('not_found', `The task "${id}" is not part of this chat.`, { hint: 'Register it with tasks.register for this chat first.' });
      }
    }
    const target = resolveContainerKey(
      { name: profile.name, backend: profile.settings.backend, containerScope: profile.settings.containerScope },
      id,
      this.sessions.taskLookup(profile.name),
    );
    return { chat, profile, taskId: id, target };
  }

  /** The chat whose attachments a container mounts: the owner task's chat; none for a shared container. */
  private mountsFor(r: ResolvedTarget): PlannedMount[] {
    const input = this.planInput(r);
    return input ? planMounts(input) : [];
  }

  private planInput(r: ResolvedTarget): MountPlanInput | null {
    return this.folders.planInput(r);
  }

  /**
   * What the chat's container is created with, and whether its folders are seen through its
   * slot: a change in the first means a new container (folders/ says so when attaching).
   */
  mountShape(chatId: string): MountShape | null {
    return this.folders.shape(this.resolve(chatId));
  }

  /**
   * Acts on a change of the chat's folders (folders/chatFolders.ts FolderChange) and returns
   * what the user is told: nothing when the container keeps its mounts (its shells hear where
   * their folders went) or does not exist yet; else that it is recreated, and for a chat
   * leaving its warm sandbox why (also on that bring-up's progress line). A running container
   * being replaced restarts the chat's terminals (terminal/ subscribes to folders.remounted).
   */
  async applyFolderChange(chatId: string, change: FolderChange): Promise<string | null> {
    this.followFolders(chatId);
    if (!change.remounts) {
      if (change.firstFolder) this.mainEvents.emit('folders.moved', { chatId, note: change.firstFolder.kept, restartIdle: change.firstFolder.restart });
      if (change.movedNote) this.mainEvents.emit('folders.moved', { chatId, note: change.movedNote });
      return null;
    }
    if (change.freshReason) this.noteCold(chatId, change.freshReason);
    let exists: boolean;
    try {
      exists = await this.containerExists(this.sessions.requireChat(chatId));
    } catch {
      return null;
    }
    if (!exists) return null;
    this.mainEvents.emit('folders.remounted', { chatId });
    return change.freshReason ? FOLDER_MESSAGES.leavesWarmNotice(change.freshReason) : RECREATE_NOTICE;
  }

  /** Whether an attach or detach would replace the chat's running container (the attach dialog asks first when it would). */
  async attachEffect(req: ParsedRequest<'workspace.attachPreview'>): Promise<{ recreates: boolean; reason: string | null }> {
    const reason = await this.folders.remountReason(req);
    const keeps = { recreates: false, reason: null };
    if (reason === null) return keeps;
    try {
      if (!(await this.containerExists(this.sessions.requireChat(req.chatId)))) return keeps;
    } catch {
      // Not knowing whether it exists: say it may be replaced (asking once too often loses nothing).
    }
    return { recreates: true, reason };
  }

  private imageFor(r: ResolvedTarget): string {
    if (r.target.kind !== 'container' || r.target.ownerTaskId === null) return r.profile.settings.image;
    const lookup = this.sessions.taskLookup(r.profile.name);
    return lookup(qualifyTaskId(r.profile.name, r.target.ownerTaskId))?.override?.image ?? r.profile.settings.image;
  }

  /**
   * `signal`: a caller that gave up while the sandbox was starting (Stop) runs nothing.
   * `sandboxOnly`: the agent's tools, which never run on this computer, even if the profile
   * was switched to the local backend mid-turn.
   */
  async exec(req: ParsedRequest<'sandbox.exec'>, options: { signal?: AbortSignal; sandboxOnly?: boolean } = {}): Promise<ExecResult> {
    const { signal } = options;
    const r = this.resolve(req.chatId, req.taskId);
    if (options.sandboxOnly && r.target.kind !== 'container') {
      throw new BerthError('invalid_request', 'This chat’s profile now runs commands on this computer, so the agent cannot use it.', { hint: 'Switch the profile back to the Docker backend.' });
    }
    const cwdKey = qualifyTaskId(r.profile.name, r.taskId);
    const startCwd = r.taskId === r.chat.id ? null : (this.store.tasks.get(cwdKey)?.override?.cwd ?? null);
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;

    if (r.target.kind === 'local') {
      const first = this.store.attachments.forChat(r.chat.id).find((a) => a.provenance === 'session');
      const recorded = this.store.cwd.get(cwdKey) ?? (startCwd ? { path: startCwd, location: 'host' as const } : null);
      const where = resolveCommandCwd({
        backend: 'local', workdir: req.workdir ?? null, recorded, mounts: [], home: this.homeDir, localDefault: first?.hostPath ?? null,
      });
      const notices: string[] = [];
      let cwd = where.cwd;
      if (!isDirectory(cwd)) {
        notices.push(`${cwd} does not exist any more; the command ran in ${where.fallback}.`);
        cwd = isDirectory(where.fallback) ? where.fallback : this.homeDir;
      }
      const out = await runLocal({ command: req.command, cwd, timeoutMs, headBytes: OUTPUT_HEAD_BYTES, tailBytes: OUTPUT_TAIL_BYTES });
      if (out.cwd) this.store.cwd.set(cwdKey, { path: out.cwd, location: 'host' }, this.clock.now());
      if (out.timedOut) notices.push(timeoutNotice(timeoutMs));
      const { interrupted: _interrupted, ...result } = out;
      return { ...result, cwd: out.cwd ?? cwd, notices };
    }

    const mounts = this.mountsFor(r);
    const folders = visibleFolders(mounts);
    const envDir = this.environmentDir(r);
    const stored = this.store.cwd.get(cwdKey);
    const recorded =
      stored ??
      (startCwd ? { path: startCwd, location: hostPathToContainer(startCwd, folders) ? ('host' as const) : ('container' as const) } : null) ??
      (envDir ? { path: envDir, location: 'container' as const } : null);
    const where = resolveCommandCwd({ backend: 'docker', workdir: req.workdir ?? null, recorded, mounts: folders, home: SANDBOX_HOME });
    const key = r.target.key;
    const ready = await this.publishing(r.chat.id, this.manager.acquire(this.sandboxRequest(r, key, mounts)));
    try {
      if (signal?.aborted) throw new BerthError('invalid_request', 'Stopped before the command ran.');
      const out = await ready.session.run({
        command: req.command, cwd: where.cwd, fallback: where.fallback, timeoutMs, headBytes: OUTPUT_HEAD_BYTES, tailBytes: OUTPUT_TAIL_BYTES,
        owner: cwdKey,
      });
      // Written when it moved: each write is a synchronous SQLite commit, 0.4 ms of an agent's
      // tool call here (npm run bench:agent), and most commands leave the directory where it was.
      if (out.cwd && (stored?.path !== out.cwd || stored.location !== 'container')) this.store.cwd.set(cwdKey, { path: out.cwd, location: 'container' }, this.clock.now());
      const notices = [...ready.notices];
      if (out.timedOut) notices.push(timeoutNotice(timeoutMs));
      if (out.interrupted) notices.push("The command was interrupted (exit code 130). The shell's working directory and exported variables are kept.");
      const { interrupted: _interrupted, ...result } = out;
      return { ...result, cwd: out.cwd ?? where.cwd, notices };
    } catch (error) {
      // The shell ended with the connection to the engine (a remote one gone, Docker down): say that.
      if (error instanceof BerthError && error.code === 'container_vanished') await this.manager.engineOf(key, r.profile.settings).ping();
      throw error;
    } finally {
      ready.dispose();
    }
  }

  /**
   * After the chat's folders changed: where its commands were only because that was the default
   * (the home before its first folder), they now start where commands start with the new folders
   * (policy/commandCwd forgetsRecordedCwd). A subagent starts where its override says, as before.
   */
  followFolders(chatId: string): void {
    const r = this.resolve(chatId);
    if (r.target.kind !== 'container') return;
    const cwdKey = qualifyTaskId(r.profile.name, r.taskId);
    const recorded = this.store.cwd.get(cwdKey);
    if (recorded && forgetsRecordedCwd(recorded, defaultContainerCwd(visibleFolders(this.mountsFor(r)), SANDBOX_HOME), SANDBOX_HOME)) this.store.cwd.clear(cwdKey);
  }

  /**
   * Brings the chat's container up for a terminal, runs `start` (the terminal's exec) in it and
   * holds it (no idle stop) until the terminal's owner disposes `hold`. While `start` runs the
   * container is leased like a command's: a recreate (a folder attached meanwhile) waits for it,
   * so nothing ever execs into a container being removed; once started, the hold never delays
   * a recreate (the terminal starts again in the new container: TerminalService.restartForChat).
   */
  async startForTerminal<T>(
    chatId: string,
    start: (where: { key: string; containerId: string; user: string; workingDir: string }) => Promise<T>,
  ): Promise<{ key: string; containerId: string; user: string; hold: Disposable; started: T }> {
    const r = this.resolve(chatId);
    if (r.target.kind !== 'container') {
      throw new BerthError('invalid_request', `The profile "${r.profile.name}" runs commands directly on this computer (no sandbox), so Berth opens no terminal for it.`, {
        hint: 'Use your own terminal for local work, or switch the profile to the Docker backend.',
      });
    }
    const mounts = this.mountsFor(r);
    const key = r.target.key;
    const request = this.sandboxRequest(r, key, mounts);
    const pin = await this.publishing(r.chat.id, this.manager.acquire(request));
    try {
      // Joins the pinned container (same request, nothing can recreate it while pinned).
      const hold = await this.manager.hold(request);
      try {
        // The chat's folders only: a pooled chat's empty slot is no folder of its own (it starts in the home, as commands do).
        const started = await start({ key, containerId: hold.containerId, user: hold.user, workingDir: this.environmentDir(r) ?? defaultContainerCwd(visibleFolders(mounts), SANDBOX_HOME) });
        return { key, containerId: hold.containerId, user: hold.user, hold, started };
      } catch (error) {
        hold.dispose();
        throw error;
      }
    } finally {
      pin.dispose();
    }
  }

  /**
   * Brings up the sandbox a new chat with this id would get (no attachments yet) and holds it
   * from idling until the lease is disposed: the warm pool's way in (sandbox/warmPool.ts). The request is
   * built exactly as the chat's own first command builds it, so the chat finds it ready.
   */
  async warm(profile: ProfileRecord, chatId: string, environment: WarmEnvironment | null = null): Promise<Disposable> {
    const chat: ChatRecord = { id: chatId, profile: profile.name, title: '', image: null, createdAt: 0 };
    const target = resolveContainerKey(
      { name: profile.name, backend: profile.settings.backend, containerScope: profile.settings.containerScope },
      chatId,
      this.sessions.taskLookup(profile.name),
    );
    if (target.kind !== 'container') throw new BerthError('invalid_request', 'Only a Docker profile keeps warm sandboxes.');
    const r: ResolvedTarget = { chat, profile, taskId: chatId, target };
    // Its slot folder first: the container is created with it mounted, for the copies to come.
    this.folders.makeSlot(profile.name, chatId);
    // Nobody watches a chat that does not exist yet: its bring-up reports no progress.
    return this.manager.hold({ ...this.sandboxRequest(r, target.key, this.mountsFor(r), environment), onProgress: () => undefined });
  }

  /** Why a chat's first sandbox is made for it rather than taken warm, for its progress line. */
  private readonly coldReasons = new Map<string, string>();
  noteCold(chatId: string, reason: string): void {
    this.coldReasons.set(chatId, reason);
  }

  /** `warmWith`: a warm sandbox made from the profile's last prepared environment (WarmPool), as a chat using it asks for it. */
  private sandboxRequest(r: ResolvedTarget, key: string, mounts: PlannedMount[], warmWith: WarmEnvironment | null = null): SandboxRequest {
    // A warm sandbox keeps its working directory when its slot fills: the home (commands and
    // terminals are sent to their folder by the cwd they are given).
    const input = this.planInput(r);
    const inSlot = input !== null && usesSlot(input);
    const owner = this.ownerChatId(r);
    // A chat's project environment (environment/ writes it, store/chatEnvironments reads it): its variables and start folder.
    const environment = warmWith ?? (owner ? chatSandboxSettings(this.store.settings, owner) : null);
    return {
      key,
      profile: r.profile,
      chatId: owner,
      image: warmWith?.image ?? this.imageFor(r),
      mounts,
      workingDir: environment?.workingDir ?? (inSlot ? SANDBOX_HOME : defaultContainerCwd(mounts, SANDBOX_HOME)),
      ...(environment?.env.length ? { env: environment.env } : {}),
      ...(environment?.postStart ? { postStart: environment.postStart } : {}),
      onProgress: (phase, message, fraction) => {
        const why = phase === 'creating' ? this.coldReasons.get(r.chat.id) : undefined;
        if (phase === 'ready') this.coldReasons.delete(r.chat.id);
        const text = why ? `${message} (${why})` : message;
        this.events.emit('sandbox.progress', { chatId: r.chat.id, key, phase, message: text, fraction, revision: ++this.revision });
      },
    };
  }

  /**
   * After a bring-up that had something to say (it started a container, joined one in progress,
   * or failed), tells clients the chat's new sandbox state. A warm command stays quiet. A joined
   * bring-up may be the warm pool's, which tells nobody: without this a chat that took a sandbox
   * still warming kept showing "Sandbox: starting" beside a working terminal.
   */
  private async publishing(chatId: string, work: Promise<SandboxLease>): Promise<SandboxLease> {
    const publish = () => void this.status(chatId).then((s) => this.events.emit('sandbox.status', s), () => undefined);
    try {
      const ready = await work;
      if (ready.broughtUp || ready.joined) publish();
      return ready;
    } catch (error) {
      publish();
      throw error;
    }
  }

  private ownerChatId(r: ResolvedTarget): string {
    if (r.target.kind !== 'container' || r.target.ownerTaskId === null) return '';
    const owner = r.target.ownerTaskId;
    const chat = this.store.chats.get(owner);
    if (chat && chat.profile === r.profile.name) return chat.id;
    return this.store.tasks.get(qualifyTaskId(r.profile.name, owner))?.chatId ?? r.chat.id;
  }

  /** Stops the command the task is running; a shared container's other users are not affected. */
  async interrupt(chatId: string, taskId?: string): Promise<{ interrupted: boolean }> {
    const r = this.resolve(chatId, taskId);
    if (r.target.kind !== 'container') return { interrupted: false };
    return { interrupted: await this.manager.interrupt(r.target.key, qualifyTaskId(r.profile.name, r.taskId)) };
  }

  async status(chatId: string): Promise<SandboxStatus> {
    // Numbered before anything is read: whatever happens while the engine answers is newer.
    const revision = ++this.revision;
    const r = this.resolve(chatId);
    const base = { chatId, image: this.imageFor(r), revision };
    if (r.target.kind === 'local') {
      return { ...base, state: 'local', key: null, containerId: null, containerName: null, networkName: null, error: null, engine: null, profileEngine: null };
    }
    const networkName = this.manager.networkName(r.profile, r.target.key);
    const s = await this.manager.status(r.target.key, r.profile.settings);
    return {
      engine: this.manager.engineRef(r.target.key, r.profile.settings),
      profileEngine: this.manager.profileEngineRef(r.target.key, r.profile.settings),
      ...base,
      state: s.state,
      key: r.target.key,
      containerId: s.containerId,
      containerName: s.containerName,
      networkName,
      error: s.error ? { code: s.error.code, message: s.error.message } : null,
      environment: s.state === 'none' ? null : this.manager.imageNote(r.target.key),
    };
  }

  /**
   * After its profile changed: a chat whose last bring-up failed shows that error no longer
   * (the next command or terminal tries again with the new settings), and clients hear so.
   */
  async forgetError(chatId: string): Promise<void> {
    const r = this.resolve(chatId);
    if (r.target.kind !== 'container' || !this.manager.forgetError(r.target.key)) return;
    this.events.emit('sandbox.status', await this.status(chatId));
  }

  /** Something its header says changed (its proxy joined): clients hear the chat's status again. */
  async refreshStatus(chatId: string): Promise<void> {
    this.events.emit('sandbox.status', await this.status(chatId));
  }

  /** Its profile names another engine now: clients hear which engine the sandbox stays on until it restarts. */
  async engineChanged(chatId: string): Promise<void> {
    this.events.emit('sandbox.status', await this.status(chatId));
  }

  /** A remote sandbox's Review copies → their copies on this computer (nothing for a local one). */
  async pullRemoteCopies(chatId: string): Promise<void> {
    const r = this.resolve(chatId);
    if (r.target.kind !== 'container' || !this.manager.isRemote(r.target.key)) return;
    await this.manager.syncRemoteCopies(r.target.key, this.mountsFor(r));
  }

  /** Whether the chat's sandbox runs on a remote engine now: its Review copies there are volumes, not the folders here. */
  runsRemotely(chatId: string): boolean {
    const r = this.resolve(chatId);
    return r.target.kind === 'container' && this.manager.isRemote(r.target.key);
  }

  /** Berth rewrites the copies here: a remote sandbox and its copy volumes go, to be filled again on its next start. */
  async dropRemoteCopies(chatId: string): Promise<void> {
    const r = this.resolve(chatId);
    if (r.target.kind !== 'container' || !this.manager.isRemote(r.target.key)) return;
    await this.manager.dropRemoteCopies(r.target.key, this.mountsFor(r));
  }

  async stop(chatId: string): Promise<SandboxStatus> {
    const r = this.resolve(chatId);
    if (r.target.kind === 'container') await this.manager.stop(r.target.key, r.profile.settings);
    const status = await this.status(chatId);
    this.events.emit('sandbox.status', status);
    return status;
  }

  async containerExists(chat: ChatRecord): Promise<boolean> {
    const r = this.resolve(chat.id);
    if (r.target.kind !== 'container') return false;
    return (await this.manager.status(r.target.key, r.profile.settings)).state !== 'none';
  }
}

function timeoutNotice(ms: number): string {
  const after = ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
  return `The command was stopped after ${after} (exit code 124). The shell's working directory and exported variables are kept.`;
}

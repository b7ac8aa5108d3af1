/**
 * The composition root: builds the services once and returns the one API object that every
 * transport (in-process, Electron IPC, the browser host's JSON-RPC) exposes. Never imports
 * Electron, so it runs and is tested under plain Node.
 */
import { EnvironmentService } from './environment/environmentService.js';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { BERTH_BASE_IMAGE, DEFAULT_ENGINE_SETTING, DEFAULT_PROFILE, methods, type EngineSetting, type EventPayload, type MethodName, type ParsedRequest, type ProfileSettings, type Request, type Response } from '../../shared/contract.js';
import { BerthError } from '../../shared/errors.js';
import { createEngine, type DockerEngineOptions, type Engine } from './engine/dockerEngine.js';
import { contextByName, currentContextHost, listContexts } from './engine/dockerContext.js';
import { engineSettingProblem } from './engine/engineSettingCheck.js';
import { EventHub, type Disposable, type EventListener } from './events.js';
import { chooseEngine, type EngineChoice } from './policy/engineChoice.js';
import { EngineRegistry } from './sandbox/engineRegistry.js';
import { EngineCheckGate, causeChain } from './sandbox/engineCheckGate.js';
import { clientRequestProblem } from './policy/clientPolicy.js';
import { sandboxUserFor, type HostUser } from './policy/sandboxUser.js';
import { decideWritable, type FolderOwner } from './policy/writableFolders.js';
import { systemClock, type Clock } from './base/clock.js';
import { KeyedThrottle } from './base/keyedThrottle.js';
import { BaseImage } from './sandbox/baseImage.js';
import { SandboxManager } from './sandbox/sandboxManager.js';
import { DeletionService } from './sandbox/deletionService.js';
import { OrphanReaper } from './sandbox/orphanReaper.js';
import { SandboxService } from './sandbox/sandboxService.js';
import { WarmPool } from './sandbox/warmPool.js';
import { ImagePreparer, preparationHooks } from './sandbox/imagePreparations.js';
import { hasSlot, makeSlot, removeSlot, slotDirFor, sweepSlots } from './review/slotFolders.js';
import { qualifyTaskId } from './policy/containerKey.js';
import { isAutomaticTitle, titleFromMessage } from './policy/chatTitle.js';
import { SessionService } from './sessions/sessionService.js';
import { directlyWritableFolders } from './sessions/mountedFolders.js';
import { directWriterOf } from './policy/attachmentOverlap.js';
import { openDatabase } from './store/database.js';
import { createStore, type ChatRecord, type Store } from './store/repositories.js';
import { gatherHostFacts, resolveAttachableFolder } from './workspace/folderValidation.js';
import { WorkspaceService } from './workspace/workspaceService.js';
import { browseFolders } from './workspace/folderBrowser.js';
import { TerminalService } from './terminal/terminalService.js';
import { copyRewriter } from './terminal/copyRewrite.js';
import { AgentService, type Complete } from './agent/agentService.js';
import { createApiChats, type ApiChats } from './agent/apiChats.js';
import { ProviderKeys } from './agent/providerKeys.js';
import { streamChatCompletion } from './agent/provider/openaiClient.js';
import { McpServers, mcpContainer } from './agent/mcp/mcpServers.js';
import { LIST_PORTS_COMMAND } from './policy/listeningPorts.js';
import { keyFileBox, type SecretBox } from './agent/secrets/secretBox.js';
import { ReviewService } from './review/reviewService.js';
import { ReviewEdits } from './review/reviewEdits.js';
import { ReviewComments } from './review/reviewComments.js';
import { EgressService, type EgressOptions } from './egress/egressService.js';
import { EgressImage } from './egress/egressImage.js';
import { networkHandlers } from './egress/networkHandlers.js';
import { EGRESS_IMAGE } from './policy/egressImage.js';
import { allowlistEngineProblem } from './policy/egress.js';
import { parseSubnetPool, type SubnetPool } from './policy/subnets.js';
import { DEFAULT_EGRESS } from '../../shared/egress.js';
import { StatsService } from './sandbox/statsService.js';
import { PortService } from './ports/portService.js';

export interface CoreOptions {
  /** Where Berth keeps its store and the sandboxes' homes (Electron's userData in the app). */
  dataDir: string;
  /** A Docker engine client; by default the engine the user's own Docker tools use. */
  engine?: Engine;
  clock?: Clock;
  hostUser?: HostUser;
  /** Read for DOCKER_HOST only; never a source of mounts. */
  env?: NodeJS.ProcessEnv;
  /** How often orphaned containers are looked for; 0 turns the periodic sweep off. */
  reapIntervalMs?: number;
  /** How often running sandboxes are checked against their limits (sandbox.pressure); 0: never. */
  pressureEveryMs?: number;
  /** Seals provider API keys at rest: Electron's safeStorage in the app; a key file by default. */
  secrets?: () => SecretBox;
  /** The OpenAI-compatible client (tests may wrap it; it still speaks real HTTP). */
  complete?: Complete;
  /**
   * The tag of Berth's own base image, which the default profile uses and Berth builds when it
   * is missing; by default BERTH_BASE_IMAGE from env, else berth-sandbox:1 (tests use their own).
   */
  baseImage?: string;
  /** Where allowlist profiles' proxies run and reach out (tests: their own pretend internet). */
  egress?: EgressOptions;
  /** The most of a git repository's history a pooled chat's slot copies (review/reviewCopy SLOT_HISTORY_MAX_BYTES; tests lower it). */
  slotHistoryMaxBytes?: number;
  /**
   * The known_hosts files ssh:// engines' host keys are checked against; by default the user's
   * and the system's, as `ssh` reads them (tests: a file of their own). Never from the environment.
   */
  knownHostsFiles?: string[];
  /** Main's log, for what a page is told only in general (an engine check's real error); stderr by default. */
  log?: (line: string) => void;
}

type Handler<M extends MethodName> = (request: Request<M>) => Promise<Response<M>>;
type GroupOf<M> = M extends `${infer G}.${string}` ? G : never;
type VerbOf<M> = M extends `${string}.${infer V}` ? V : never;
/** `core.chats.create(…)` for `chats.create`: every contract method, grouped by its prefix. */
export type GroupedApi = {
  [G in GroupOf<MethodName>]: { [M in MethodName as GroupOf<M> extends G ? VerbOf<M> : never]: Handler<M> };
};

export interface BerthCore extends GroupedApi {
  /** Calls a method by name with an unchecked payload, as Berth itself (tests, configuration). */
  call(method: string, params: unknown): Promise<unknown>;
  /**
   * A connected screen (a window, a browser tab): its calls are client calls (host-level
   * settings are refused: policy/clientPolicy.ts), and terminals
   * pace their output to it until it disposes.
   */
  connectClient(): ClientSession;
  onEvent(listener: EventListener): Disposable;
  /** The OpenAI-compatible API's way in (browser host): conversations map to chats by policy/apiChatId. */
  readonly apiChats: ApiChats;
  profileNames(): string[];
  /** How many warm sandboxes of the profile are up and waiting for a new chat (tests, bench). */
  warmReady(profile: string): number;
  /** Removes this instance's containers whose chat or profile no longer exists; returns how many. */
  reap(): Promise<number>;
  /** Settles when start-up work (the first orphan sweep) is done. */
  readonly ready: Promise<void>;
  readonly instanceId: string;
  dispose(): Promise<void>;
}

export interface ClientSession {
  readonly id: string;
  call(method: string, params: unknown): Promise<unknown>;
  dispose(): void;
}

export const DEFAULT_REAP_INTERVAL_MS = 5 * 60_000;
/** How long quitting waits for calls in progress before stopping containers anyway. */
const DISPOSE_WAIT_MS = 5_000;
/** Terminal output tells the review service at most this often per chat (see touchReview). */
const REVIEW_TOUCH_MS = 100;

/** SQLite's "database or disk is full", or the file system's ENOSPC. */
function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    // One sentence: the caller ends it with a full stop, so the issues' own are dropped.
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message).replace(/\.+$/, ''))
    .join('; ');
}

/**
 * Engines as profiles name them (shared/engines.ts): the default one is the engine the user's
 * Docker tools use, or the one a caller injected; a broken address still lets the app open and
 * say so (the registry turns a refused setting into an engine whose calls give the reason).
 */
function engineRegistry(env: NodeJS.ProcessEnv, injected: Engine | undefined, events: EventHub, clock: Clock, engineOptions: DockerEngineOptions): EngineRegistry {
  const home = os.homedir();
  const choose = (setting: EngineSetting): EngineChoice => {
    if (setting.kind === 'default' && injected) {
      return { endpoint: { kind: 'socket', socketPath: '' }, ref: { id: 'default', kind: 'default', label: injected.endpointLabel, remote: false } };
    }
    return chooseEngine(setting, {
      env,
      platform: process.platform,
      homeDir: home,
      exists: fs.existsSync,
      currentContextHost: currentContextHost(env, home),
      context: (name) => contextByName(name, env, home),
    });
  };
  return new EngineRegistry({
    choose,
    create: (choice) => (choice.ref.id === 'default' && injected ? injected : createEngine(choice.endpoint, engineOptions)),
    events,
    clock,
  });
}

function instanceIdOf(store: Store): string {
  const existing = store.settings.get('instance_id');
  if (existing) return existing;
  const id = randomUUID().replace(/-/g, '');
  store.settings.set('instance_id', id);
  return id;
}

/** Owner and mode of each folder, as it is now; one that cannot be read is left to the mount checks. */
function folderOwners(paths: readonly string[]): FolderOwner[] {
  return paths.flatMap((p) => {
    try {
      const st = fs.statSync(p);
      return [{ path: p, uid: st.uid, gid: st.gid, mode: st.mode & 0o777 }];
    } catch {
      return [];
    }
  });
}

export function createCore(options: CoreOptions): BerthCore {
  const dataDir = path.resolve(options.dataDir);
  const clock = options.clock ?? systemClock;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const env = options.env ?? process.env;
  const hostUser: HostUser = options.hostUser ?? {
    uid: process.getuid?.() ?? null,
    gid: process.getgid?.() ?? null,
    platform: process.platform,
  };
  const store = createStore(openDatabase(dataDir));
  const instanceId = instanceIdOf(store);
  const events = new EventHub();
  const engines = engineRegistry(env, options.engine, events, clock, options.knownHostsFiles ? { knownHostsFiles: options.knownHostsFiles } : {});
  const engineOfProfile = (name: string) => engines.forSetting(sessions.requireProfile(name).settings.engine);
  // This computer's engine (or the injected one): Berth's own images are built here, and the
  // egress proxies, warm pool and use statistics run on it.
  const engine = engines.forSetting(DEFAULT_ENGINE_SETTING).engine;
  const hostFacts = () => gatherHostFacts(dataDir, env);
  // A socket path: the engine runs on this computer, so images made from this computer's files
  // (the host's busybox, a debootstrap root file system) suit it.
  const engineIsLocal = engine.endpointLabel.startsWith('/');
  const baseImage = new BaseImage({ engine, tag: options.baseImage ?? (env.BERTH_BASE_IMAGE || BERTH_BASE_IMAGE), engineIsLocal });

  // BERTH_EGRESS_NETWORK: the network the proxies reach out through (a test's pretend internet);
  // BERTH_EGRESS_IMAGE: the proxy image's tag (a first-run test's own, so it sees the build);
  // BERTH_EGRESS_POOL / _SIZE: the range the sandboxes' sealed networks take subnets from.
  const egressOptions: EgressOptions = {
    subnetPool: subnetPoolFrom(env),
    ...(env.BERTH_EGRESS_NETWORK ? { outsideNetwork: env.BERTH_EGRESS_NETWORK } : {}),
    ...(env.BERTH_EGRESS_IMAGE ? { image: env.BERTH_EGRESS_IMAGE } : {}),
    ...options.egress,
  };
  const egressImage = new EgressImage({ engine, tag: egressOptions.image ?? EGRESS_IMAGE, engineIsLocal, ...preparationHooks(env) });
  const egress = new EgressService(
    {
      engine,
      instanceId,
      events,
      settingsOf: (profile) => store.profiles.get(profile)?.settings,
      ensureImage: (tag, onProgress) => (tag === egressImage.tag ? egressImage.ensure(onProgress) : Promise.resolve()),
      grantStore: { load: () => store.settings.get('egress.chat_grants'), save: (v) => store.settings.set('egress.chat_grants', v) },
      ...(env.BERTH_PREPARE_IMAGES === '1' ? { imageReady: () => egressImage.present() } : {}),
      onProxyJoined: (profile) => store.chats.list(profile).forEach((c) => void sandbox.refreshStatus(c.id)),
    },
    egressOptions,
  );
  const preparer: ImagePreparer = new ImagePreparer({
    engine, baseTag: baseImage.tag, engineIsLocal, env, egress: egressImage, profiles: () => store.profiles.list(),
    openNetwork: (profile, settings): Promise<string> => manager.profileNetwork(profile, settings),
    onChange: (preparations) => events.emit('images.status', { preparations }),
    onDefaultReady: () => void Promise.all(store.profiles.list().filter((p) => p.settings.image === baseImage.tag).map((p) => pool.drop(p.name).then(() => fillPool(p)))),
    onSetupReady: (name) => void pool.drop(name).then(() => { const p = store.profiles.get(name); if (p) fillPool(p); }),
  });
  const manager = new SandboxManager({
    chooseImage: (req, running) => preparer.choose(req, running),
    imageNote: (requested, image, noted) => preparer.noteNow(requested, image, noted),
    egress,
    ...(egressOptions.subnetPool ? { subnetPool: egressOptions.subnetPool } : {}),
    engines: { forProfile: (settings) => engines.forSetting(settings.engine), all: () => engines.all(), local: () => engines.forSetting(DEFAULT_ENGINE_SETTING) },
    instanceId,
    dataDir,
    hostFacts,
    clock,
    baseImage,
    sandboxUser: (settings, mounts) =>
      decideWritable(
        hostUser,
        settings.sandboxUser,
        folderOwners(mounts.filter((m) => m.origin === 'chat' && !m.readOnly).map((m) => m.source)),
        mounts.some((m) => m.origin === 'review' || m.origin === 'slot'),
      ).user,
    homeOwner: (_settings, user) => {
      if (hostUser.uid !== 0) return null;
      const [uid, gid] = user.split(':').map(Number);
      return { uid: uid as number, gid: gid as number };
    },
  });
  const sessions = new SessionService(store, clock, (p) => resolveAttachableFolder(p, hostFacts()));
  sessions.ensureDefaultProfile(baseImage.tag);
  const sandbox = new SandboxService(store, sessions, manager, events, clock, os.homedir());
  // Warm sandboxes' slot folders (review/slotFolders.ts): made with the reservation, gone with the chat.
  const slots = {
    existing: (profile: string, chatId: string) => {
      const dir = slotDirFor(dataDir, profile, chatId);
      return hasSlot(dir) ? dir : null;
    },
    make: (profile: string, chatId: string) => makeSlot(slotDirFor(dataDir, profile, chatId)),
    remove: (profile: string, chatId: string) => removeSlot(slotDirFor(dataDir, profile, chatId)),
  };
  sandbox.setSlots(slots);
  const environments = new EnvironmentService({ store, sessions, sandbox, manager, events, clock });
  sandbox.setEnvironments((chatId) => environments.sandboxSettings(chatId));
  environments.onImageChanged((chatId) => terminals.restartForChat(chatId, 'The chat’s project environment changed: the sandbox was made again from its image and this terminal started again.'));
  const terminals = new TerminalService(sandbox, manager, events, clock);
  const workspace = new WorkspaceService(store, sessions, hostFacts, clock, (chat) => sandbox.containerExists(chat));

  // Review mode: per-chat copies of folders attached in that mode (review/), wired into attaching
  // (workspace), mounting (sandbox) and agent turns (a restore point before each).
  const review = new ReviewService({
    dataDir,
    events,
    clock,
    attachments: (chatId) => {
      const chat = store.chats.get(chatId);
      return chat ? workspace.views(chat).filter((a) => a.mode === 'review') : [];
    },
    rewriting: copyRewriter(sandbox, terminals),
    pull: (chatId) => sandbox.pullRemoteCopies(chatId),
    writableBySandbox: (hostPath) => directWriterOf(directlyWritableFolders(store), hostPath),
    chatTitle: (chatId) => store.chats.get(chatId)?.title ?? chatId,
    slotOf: (chatId) => {
      const chat = store.chats.get(chatId);
      return chat ? slots.existing(chat.profile, chatId) : null;
    },
    sessionFolders: (chatId) => store.attachments.forChat(chatId).filter((a) => a.provenance === 'session').map((a) => ({ hostPath: a.hostPath, mode: a.mode })),
    ...(options.slotHistoryMaxBytes !== undefined ? { slotHistoryMaxBytes: options.slotHistoryMaxBytes } : {}),
  });
  const copyOwner = (profileName: string) => {
    if (hostUser.uid !== 0) return null;
    const [uid, gid] = sandboxUserFor(hostUser, sessions.requireProfile(profileName).settings.sandboxUser).split(':').map(Number);
    return { uid: uid as number, gid: gid as number };
  };
  workspace.setWriteCheck((chat, readWrite, hasReviewCopies) =>
    decideWritable(hostUser, sessions.requireProfile(chat.profile).settings.sandboxUser, folderOwners(readWrite), hasReviewCopies).warnings,
  );
  workspace.setReviewCopies({
    create: async (chat, hostPath, contents) => {
      await review.create(chat.id, hostPath, contents, copyOwner(chat.profile));
    },
    info: (chatId, hostPath) => review.copyFor(chatId, hostPath)?.info(review.knownCount(chatId, hostPath)) ?? null,
    hasChanges: (chatId, hostPath) => review.hasChanges(chatId, hostPath),
    remove: (chatId, hostPath) => review.remove(chatId, hostPath),
    historyNotCopied: (chatId, hostPath) => review.historyNotCopied(chatId, hostPath),
    slotProblem: (hostPath) => review.slotProblem(hostPath),
    inSlot: (chatId, hostPath) => review.inSlot(chatId, hostPath),
  });
  sandbox.setReviewSources((chatId, hostPath) => review.mountSources(chatId, hostPath));
  const reviewEdits = new ReviewEdits(review);
  // A pooled chat's folders moving in the container it keeps (a second Review-mode copy in its slot): its shells are told, not restarted;
  // its first folder arriving there: idle terminals start again in it, busy ones are told.
  workspace.setShellNotes((chatId, note, restartIdle) => {
    if (restartIdle) void terminals.restartIdleForChat(chatId, restartIdle, note);
    else terminals.noteForChat(chatId, note);
  });
  workspace.setContainerView({
    shape: (chat) => sandbox.mountShape(chat.id),
    noteFresh: (chat, why) => sandbox.noteCold(chat.id, why),
  });
  // Terminal output may have written into the chat's Review copies: recount soon. A flood sends
  // hundreds of events a second, and asking the review service (it reads the chat's attachments
  // from the store) for each one measured over half of the main process's time per event
  // (`npm run bench:app -- --skip-memory --skip-changes --skip-switch`, Node --cpu-prof of the
  // host): asked at most every REVIEW_TOUCH_MS per chat, and once more after the last, the
  // recount (debounced far longer) comes as before.
  const touchReview = new KeyedThrottle((chatId) => review.touched(chatId), REVIEW_TOUCH_MS, clock);
  events.on((event, payload) => {
    if (event !== 'terminal.data') return;
    const chatId = terminals.chatOf((payload as { terminalId: string }).terminalId);
    if (chatId) touchReview.call(chatId);
  });

  const stats = new StatsService({
    engine,
    events,
    clock,
    instanceId,
    pressureEveryMs: options.pressureEveryMs,
    runningContainer: async (chatId) => {
      const s = await sandbox.status(chatId);
      return s.state === 'running' ? s.containerId : null;
    },
    homeFolder: (chatId) => {
      const r = sandbox.resolve(chatId);
      return r.target.kind === 'container' ? manager.homeFor(r.profile.name, r.target.key) : null;
    },
  });

  // Ports (README: Ports): forwards to the chat's running container, as its own user, on its own engine.
  const runningContainer = async (chatId: string) => {
    const s = await sandbox.status(chatId);
    if (s.state !== 'running' || !s.key || !s.containerId) return null;
    const engine = manager.engineOf(s.key);
    const user = (await engine.inspectContainer(s.containerId))?.user;
    return user ? { key: s.key, id: s.containerId, user, engine } : null;
  };
  const ports = new PortService({
    container: runningContainer,
    onGone: (listener) => manager.onGone(listener),
    saved: { get: () => store.settings.get('port_forwards') ?? undefined, set: (v) => store.settings.set('port_forwards', v) },
  });

  const secrets = options.secrets ?? (() => keyFileBox(dataDir, env));
  const keys = new ProviderKeys(store, secrets, clock);
  const mcp = new McpServers({ container: (chatId) => mcpContainer(chatId, sandbox, runningContainer), onGone: (listener) => manager.onGone(listener) });
  const agent = new AgentService({
    mcp,
    store,
    sessions,
    keys,
    events,
    clock,
    complete: options.complete ?? streamChatCompletion,
    beforeTurn: async (chatId, messageId) => {
      if (review.hasCopies(chatId)) await review.checkpoint(chatId, 'turn', messageId);
    },
    afterTurn: (chatId, messageId) => review.endTurn(chatId, messageId),
    sandbox: {
      exec: (req, signal) => sandbox.exec(req, { signal, sandboxOnly: true }).finally(() => review.touched(req.chatId)),
      newPorts: (chatId) => ports.newPortsNote(chatId, () => sandbox.exec({ chatId, command: LIST_PORTS_COMMAND[2] as string }, { sandboxOnly: true }).then((r) => r.output)),
      networkRefusals: (chatId, since, output) => egress.refusalNote(chatId, sessions.requireChat(chatId).profile, since, output),
      interrupt: (chatId, taskId) => sandbox.interrupt(chatId, taskId),
      folders: (chatId) =>
        workspace
          .views(sessions.requireChat(chatId))
          .flatMap((a) => (a.containerPath === null ? [] : [{ containerPath: a.containerPath, readOnly: a.readOnly, hostPath: a.hostPath }])),
    },
  });

  const reviewComments = new ReviewComments({
    review, store: store.reviewComments, clock, send: (chatId, text) => agent.send(chatId, text).message,
    folderOf: (chatId, hostPath) => workspace.views(sessions.requireChat(chatId)).find((a) => a.hostPath === hostPath)?.containerPath ?? hostPath,
  });
  const withAttachments = (chat: ChatRecord, lastActive?: Map<string, number>) =>
    sessions.chatView(chat, workspace.views(chat), lastActive ? lastActive.get(chat.id) : store.agentMessages.lastUserMessageOf(chat.id));

  const deletion = new DeletionService({
    store,
    sessions,
    manager,
    engine,
    dataDir,
    endChat: async (chatId) => {
      await agent.stopAll(chatId);
      terminals.closeForChat(chatId);
      await ports.closeChat(chatId);
      await egress.forgetChat(chatId).catch(() => undefined);
    },
    dropWarm: (profile) => pool.drop(profile),
    removeCopies: (chatId, hostPaths) => review.removeChat(chatId, hostPaths),
    removeSlot: (profile, chatId) => slots.remove(profile, chatId),
    removeProxy: (profile) => egress.removeProxy(profile),
  });
  const pool = new WarmPool({
    store,
    engine,
    clock,
    warm: (profile, chatId) => sandbox.warm(profile, chatId),
    moreImages: (profile) => (profile.settings.egress === 'allowlist' ? [egressImage.tag] : []),
    discard: async (chatId, profile) => {
      await manager.removeForChat(chatId);
      fs.rmSync(manager.homeFor(profile, qualifyTaskId(profile, chatId)), { recursive: true, force: true });
      slots.remove(profile, chatId);
    },
  });
  /** Warm sandboxes are kept on this computer's engine only (a remote one would hold volumes and copies idle there). */
  const fillPool = (profile: Parameters<WarmPool['fill']>[0]) => {
    if (profile.settings.engine.kind === 'default') pool.fill(profile);
  };
  /**
   * A profile may not ask for more CPUs than the engine's machine has (Docker would refuse the
   * container later, and the user would read Docker's words): said at save time, with the count.
   * An engine that does not answer is not asked; the start says so then.
   */
  const checkCpus = async (cpus: number | undefined, on: EngineSetting | undefined) => {
    if (cpus === undefined) return;
    const machine = await engines.forSetting(on ?? DEFAULT_ENGINE_SETTING).engine.resources().catch(() => null);
    if (machine && machine.cpus > 0 && cpus > machine.cpus) {
      throw new BerthError('invalid_request', `This Docker engine has ${machine.cpus} CPU${machine.cpus === 1 ? '' : 's'}; a sandbox cannot have ${cpus}.`, {
        hint: `Set CPUs to ${machine.cpus} or fewer.`,
      });
    }
  };

  /** A setting whose files are not what its fields say (a page may name them) is refused before use. */
  const refuseEngineSetting = (setting: EngineSetting) => {
    const problem = engineSettingProblem(setting);
    if (problem) {
      log(`engine setting refused: ${causeChain(problem)}`);
      throw problem;
    }
  };
  /** An allowlist profile on an engine its proxy cannot serve is refused when saved (policy/egress.ts), not at its first chat. */
  const refuseAllowlistElsewhere = (egressMode: string, setting: EngineSetting) => {
    // Not connected to: the setting may not be saved. One that cannot be resolved: its start says why.
    const ref = engines.refFor(setting);
    const problem = ref && allowlistEngineProblem(egressMode, ref);
    if (problem) throw new BerthError('invalid_request', problem.message, { hint: problem.hint });
  };
  /**
   * The engines the status bar lists: this computer's, each one a profile names, and any a sandbox
   * still runs on. One no longer in use drops out, and its error with it (a deleted profile's).
   */
  const enginesInUse = () => {
    const used = new Set([engines.forSetting(DEFAULT_ENGINE_SETTING).ref.id, ...manager.engineIdsInUse()]);
    for (const p of store.profiles.list()) {
      const ref = engines.refFor(p.settings.engine);
      if (ref) used.add(ref.id);
    }
    return engines.all().filter((h) => used.has(h.ref.id));
  };
  const engineCheck = new EngineCheckGate({ engines, savedEngine: (name) => store.profiles.get(name)?.settings.engine ?? null, clock, log });
  const dockerContexts = () => listContexts(env, os.homedir(), engines.forSetting({ kind: 'context', name: 'default' }).engine.endpointLabel);

  /** Settings a warm sandbox was made with: a change to any of them makes it stale. */
  const warmShape = (s: ProfileSettings) =>
    JSON.stringify([s.backend, s.engine, s.image, s.egress, s.containerScope, s.mountWorkspace, s.limits, s.sandboxUser, s.homeTemplate, s.staticMounts, s.warmPool, s.setupCommand]);


  /** Who is calling: a connected client (a window, a browser tab), or Berth itself (null). */
  interface CallContext {
    client: string | null;
  }
  const impl: { [M in MethodName]: (req: ParsedRequest<M>, ctx: CallContext) => Promise<Response<M>> } = {
    'profiles.list': async () => ({ profiles: store.profiles.list().map((p) => sessions.profileView(p)) }),
    'profiles.create': async (req) => {
      if (req.engine) refuseEngineSetting(req.engine);
      refuseAllowlistElsewhere(req.egress ?? DEFAULT_EGRESS, req.engine ?? DEFAULT_ENGINE_SETTING);
      await checkCpus(req.limits?.cpus, req.engine);
      const view = sessions.createProfile(req);
      fillPool(sessions.requireProfile(view.name));
      return changed(null, view);
    },
    'profiles.update': async (req) => {
      if (req.settings.engine) refuseEngineSetting(req.settings.engine);
      const saved = sessions.requireProfile(req.name).settings;
      refuseAllowlistElsewhere(req.settings.egress ?? saved.egress, req.settings.engine ?? saved.engine);
      await checkCpus(req.settings.limits?.cpus, req.settings.engine ?? saved.engine);
      const before = warmShape(saved);
      const engineBefore = saved.engine;
      const view = sessions.updateProfile(req);
      // The running proxy takes the new list before this answers: the next request sees it.
      if (req.settings.egressAllow) await egress.allowlistChanged(view.name);
      const after = sessions.requireProfile(view.name);
      // A failure that came from the old settings (an image that does not exist) is not news now.
      for (const chat of store.chats.list(view.name)) await sandbox.forgetError(chat.id).catch(() => undefined);
      // Running sandboxes stay on their engine until they stop: their chats say so at once.
      if (req.settings.engine && engines.forSetting(req.settings.engine).ref.id !== engines.forSetting(engineBefore).ref.id) {
        for (const chat of store.chats.list(view.name)) await sandbox.engineChanged(chat.id).catch(() => undefined);
      }
      preparer.prepareSetup(after.name, after.settings);
      if (warmShape(after.settings) !== before) {
        await pool.drop(after.name);
        fillPool(after);
      }
      return changed(null, view);
    },
    ...networkHandlers({ sessions, egress, profileChanged: (view) => changed(null, view) }),
    // Each chat as it goes: the page's list (and the delete button's count) follows.
    'profiles.delete': async (req) => changed(null, { removedChats: await deletion.deleteProfile(req.name, (chatId) => events.emit('chats.changed', { chatId })) }),
    'chats.create': async (req) => {
      const profile = sessions.requireProfile(req.profile);
      // A chat with an image of its own needs a container made for that image.
      const warm = req.image === undefined ? pool.take(profile) : ({ miss: 'off' } as const);
      const chat = withAttachments(sessions.createChat(req, 'chatId' in warm ? warm.chatId : undefined));
      if ('miss' in warm && warm.miss === 'refilling') sandbox.noteCold(chat.id, 'no warm sandbox was ready yet: the profile’s pool is refilling');
      fillPool(profile);
      return changed(chat.id, chat);
    },
    'chats.rename': async (req) => changed(req.chatId, withAttachments(sessions.renameChat(req.chatId, req.title))),
    'chats.list': async (req) => {
      const lastActive = store.agentMessages.lastUserMessageAt();
      return { chats: store.chats.list(req.profile).map((chat) => withAttachments(chat, lastActive)) };
    },
    'chats.delete': async (req) => {
      const chat = store.chats.get(req.chatId);
      if (!chat) return { removed: false };
      await deletion.deleteChat(chat);
      environments.forget(chat.id);
      return changed(chat.id, { removed: true });
    },
    'tasks.register': async (req) => {
      const chat = sessions.requireChat(req.chatId);
      sessions.registerTask(chat, req);
      const target = sandbox.resolve(chat.id, req.taskId).target;
      return { key: target.kind === 'container' ? target.key : null };
    },
    'workspace.attach': async (req) => changed(req.chatId, foldersChanged(req.chatId, await workspace.attach(req))),
    'workspace.detach': async (req) => changed(req.chatId, foldersChanged(req.chatId, await workspace.detach(req))),
    'workspace.attachEffect': (req) => workspace.effect(req),
    'workspace.browse': async (req) =>
      browseFolders(req.path, (folder) => {
        try {
          resolveAttachableFolder(folder, hostFacts());
          return null;
        } catch (error) {
          return error instanceof BerthError ? error.message : String(error);
        }
      }),
    'sandbox.exec': (req) => sandbox.exec(req).finally(() => review.touched(req.chatId)),
    'sandbox.interrupt': (req) => sandbox.interrupt(req.chatId, req.taskId),
    'sandbox.status': (req) => sandbox.status(req.chatId),
    'sandbox.stop': (req) => sandbox.stop(req.chatId),
    'sandbox.watchStats': async (req, ctx) => {
      sessions.requireChat(req.chatId);
      return { watching: await stats.watch(req.chatId, ctx.client ?? 'berth') };
    },
    'sandbox.unwatchStats': async (req, ctx) => {
      stats.unwatch(req.chatId, ctx.client ?? 'berth');
      return {};
    },
    'sandbox.usage': async (req) => {
      sessions.requireChat(req.chatId);
      return stats.usage(req.chatId);
    },
    'engine.list': async () => ({ engines: enginesInUse().map((h) => h.monitor.current()) }),
    'engine.check': (req) => engineCheck.check(req.engine, req.profile),
    'engine.contexts': async () => ({ contexts: dockerContexts() }),
    'images.status': async () => ({ preparations: preparer.list() }),
    'engine.images': async () => ({ images: await engine.listImageTags(), baseImage: baseImage.tag }),
    'engine.resources': (req) => engineOfProfile(req.profile ?? DEFAULT_PROFILE).engine.resources(),
    'engine.status': async (req) => {
      const { monitor } = engineOfProfile(req.profile ?? DEFAULT_PROFILE);
      return monitor.current().state === 'checking' ? monitor.check() : monitor.current();
    },
    'ports.list': (req) => ports.list(sessions.requireChat(req.chatId).id),
    'ports.open': (req) => ports.open(sessions.requireChat(req.chatId).id, req.port),
    'ports.close': (req) => ports.close(req.chatId, req.port),
    'environment.detect': async (req) => environments.detect(req.chatId),
    'environment.use': (req) => environments.use(req.chatId, req.folder, req.config),
    'environment.rebuild': (req) => environments.rebuild(req.chatId),
    'environment.settings': async (req) => environments.keep(req.keep),
    'terminal.open': (req) => terminals.open(req.chatId, req.cols, req.rows, req.replaces),
    'terminal.list': async (req) => ({ terminals: terminals.list(req.chatId) }),
    'terminal.busy': async (req) => ({ terminals: await terminals.busy(sessions.requireChat(req.chatId).id) }),
    'terminal.input': async (req) => {
      terminals.input(req.terminalId, req.data);
      return {};
    },
    'terminal.resize': async (req) => {
      await terminals.resize(req.terminalId, req.cols, req.rows);
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
    'agent.history': async (req) => agent.history(req.chatId),
    'agent.waiting': async () => ({ approvals: agent.waiting() }),
    'agent.setOptions': async (req) => agent.setOptions(req.chatId, req),
    'agent.models': (req) => agent.models(req.chatId),
    'agent.send': async (req) => {
      const chat = sessions.requireChat(req.chatId);
      const first = !store.agentMessages.hasUserMessage(chat.id);
      const { message } = agent.send(req.chatId, req.text);
      // The first message names a chat the user has not named.
      const title = first && isAutomaticTitle(chat.title) ? titleFromMessage(req.text) : null;
      if (title !== null) sessions.renameChat(chat.id, title);
      // Its activity moved it up the list (and maybe renamed it).
      return changed(chat.id, { message });
    },
    'agent.stop': (req) => agent.stop(req.chatId),
    'agent.approve': async (req) => {
      agent.approve(req.chatId, req.approvalId, req.decision, req.reason);
      return {};
    },
    'agent.revokeAllow': async (req) => {
      agent.revokeAllow(sessions.requireChat(req.chatId).id);
      return {};
    },
    'agent.setKey': async (req) => {
      const profile = sessions.requireProfile(req.profile);
      return keys.set(profile.name, profile.settings.agent.baseUrl, req.apiKey);
    },
    'agent.clearKey': async (req) => keys.clear(sessions.requireProfile(req.profile).name),
    'agent.keyStatus': async (req) => keys.status(sessions.requireProfile(req.profile).name),
    'review.changes': (req) => review.changes(sessions.requireChat(req.chatId).id, req.hostPath, req.diffs),
    'review.diff': (req) => review.diff(sessions.requireChat(req.chatId).id, req.hostPath, req.path),
    'review.apply': (req) => review.apply(sessions.requireChat(req.chatId).id, req.hostPath, req.mode, req.files),
    'review.discard': (req) => review.discard(sessions.requireChat(req.chatId).id, req.hostPath),
    'review.refresh': (req) => review.refresh(sessions.requireChat(req.chatId).id, req.hostPath),
    'review.checkpoint': (req) => review.checkpoint(sessions.requireChat(req.chatId).id, 'manual', null, req.label),
    'review.checkpoints': (req) => review.checkpoints(sessions.requireChat(req.chatId).id),
    'review.restore': (req) => review.restore(sessions.requireChat(req.chatId).id, req.checkpointId),
    'review.undoTurn': (req) => review.undoTurn(sessions.requireChat(req.chatId).id, req.messageId),
    'review.undoApply': (req) => review.undoApply(sessions.requireChat(req.chatId).id, req.hostPath),
    'review.applyLines': (req) => reviewEdits.applyLines(sessions.requireChat(req.chatId).id, req.hostPath, req.version, req.files),
    'review.conflict': (req) => reviewEdits.conflict(sessions.requireChat(req.chatId).id, req.hostPath, req.path),
    'review.resolve': (req) => reviewEdits.resolve(sessions.requireChat(req.chatId).id, req.hostPath, req.path, req.choices),
    'review.comments': (req) => reviewComments.list(sessions.requireChat(req.chatId).id),
    'review.comment': (req) => reviewComments.add({ ...req, chatId: sessions.requireChat(req.chatId).id }),
    'review.commentClose': async (req) => reviewComments.close(sessions.requireChat(req.chatId).id, req.id, req.action),
    'review.sendComments': (req) => reviewComments.send(sessions.requireChat(req.chatId).id),
    'review.push': (req) => review.push(sessions.requireChat(req.chatId).id, req.hostPath),
  };

  /** A chat's open terminals run in a container without the new folders: end them, saying why. Its commands follow the folders. */
  function foldersChanged<T extends { notice: string | null }>(chatId: string, result: T): T {
    sandbox.followFolders(chatId);
    if (result.notice) void terminals.restartForChat(chatId, 'The chat’s folders changed: the sandbox was recreated with them and this terminal started again.');
    return result;
  }

  /** Tells clients to refetch their lists, then returns the result unchanged. */
  function changed<T>(chatId: string | null, result: T): T {
    events.emit('chats.changed', { chatId });
    return result;
  }

  let disposed = false;
  const inFlight = new Set<Promise<unknown>>();
  async function call(method: string, params: unknown, ctx: CallContext = { client: null }): Promise<unknown> {
    if (disposed) throw new BerthError('internal', 'Berth is shutting down.');
    const work = handle(method, params, ctx);
    inFlight.add(work);
    try {
      return await work;
    } finally {
      inFlight.delete(work);
    }
  }

  async function handle(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
    if (!Object.prototype.hasOwnProperty.call(methods, method)) {
      throw new BerthError('invalid_request', `Unknown method "${method}".`);
    }
    const name = method as MethodName;
    const parsed = methods[name].request.safeParse(params ?? {});
    if (!parsed.success) {
      throw new BerthError('invalid_request', `The request for ${name} is not valid: ${describeIssues(parsed.error)}.`);
    }
    try {
      return await (impl[name] as (req: unknown, ctx: CallContext) => Promise<unknown>)(parsed.data, ctx);
    } catch (error) {
      // A call that found the engine gone updates the status bar at once.
      if (error instanceof BerthError && error.code === 'engine_unreachable') for (const h of engines.all()) void h.monitor.check();
      if (error instanceof BerthError) throw error;
      if (isDiskFull(error)) {
        throw new BerthError('internal', `Berth could not save this: the disk that holds its data (${dataDir}) is full. Nothing saved before was lost.`, {
          hint: 'Free some space on that disk, then try again.',
          cause: error,
        });
      }
      // The cause stays attached for logs; the user gets words, not a stack's first line.
      throw new BerthError('internal', `Berth could not complete ${name} because of an internal error.`, {
        hint: 'Try again; if it keeps happening, restart Berth.',
        cause: error,
      });
    }
  }

  // Warm sandboxes of an earlier run go before the first sweep (it then removes their
  // containers); each profile's pool fills in the background once that sweep is done.
  // Then slot folders whose chat and reservation are both gone (Berth died while removing them).
  const forgotten = pool.forgetEarlierRun().then(() => {
    const alive = (profile: string) => new Set([...store.chats.list(profile).map((c) => c.id), ...store.warmSlots.list(profile).map((w) => w.chatId)]);
    try {
      sweepSlots(dataDir, store.profiles.list().map((p) => p.name), alive);
    } catch {
      /* the next start sweeps again */
    }
  });
  const reaper = new OrphanReaper({
    store, manager, instanceId, clock,
    // Every engine a Docker profile names gets its handle (and health) before the sweep.
    engines: () => {
      for (const p of store.profiles.list()) if (p.settings.backend === 'docker') engines.forSetting(p.settings.engine);
      return engines.all();
    },
    intervalMs: options.reapIntervalMs ?? DEFAULT_REAP_INTERVAL_MS,
    sweepNetworks: (live) => egress.sweepNetworks(live),
  });
  const ready = Promise.all([forgotten, reaper.ready]).then(() => {
    for (const p of store.profiles.list()) fillPool(p);
    void ports.restoreAll();
    preparer.start();
  });
  events.on((event, payload) => {
    if (event === 'sandbox.progress') {
      // A chat's sandbox is up, so its image is on the engine now: on a first run the first chat
      // built it, and the pool, which never builds, could not warm the next chat until now.
      const { phase, chatId } = payload as EventPayload<'sandbox.progress'>;
      const profile = phase === 'ready' ? store.profiles.get(store.chats.get(chatId)?.profile ?? '') : undefined;
      if (profile) fillPool(profile);
      return;
    }
    if (event !== 'engine.status' || (payload as { state: string }).state !== 'ok') return;
    manager.forgetEngineErrors();
    // The engine is back (or answered for the first time): warm what could not be warmed.
    for (const p of store.profiles.list()) fillPool(p);
  });

  function callFromClient(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
    const problem = clientRequestProblem(method, params);
    if (problem) return Promise.reject(new BerthError('invalid_request', problem, { hint: 'Change these in Berth’s configuration on this computer.' }));
    return call(method, params, ctx);
  }

  // core.chats.create(…) and the like: Berth itself calling (tests, configuration), not a screen.
  const grouped = {} as Record<string, Record<string, (req: unknown) => Promise<unknown>>>;
  for (const method of Object.keys(methods)) {
    const [group, verb] = method.split('.') as [string, string];
    (grouped[group] ??= {})[verb] = (req) => call(method, req);
  }

  const apiChats = createApiChats(sessions, agent, events);

  return {
    ...(grouped as unknown as GroupedApi),
    apiChats,
    profileNames: () => store.profiles.list().map((p) => p.name),
    warmReady: (profile) => pool.readyCount(profile),
    call,
    connectClient() {
      const id = randomUUID();
      terminals.addClient(id);
      return {
        id,
        call: (method, params) => callFromClient(method, params, { client: id }),
        dispose: () => {
          terminals.removeClient(id);
          stats.dropWatcher(id);
        },
      };
    },
    onEvent: (listener) => events.on(listener),
    reap: () => reaper.reap(),
    ready,
    instanceId,
    async dispose() {
      if (disposed) return;
      disposed = true;
      reaper.dispose();
      deletion.dispose();
      engines.dispose();
      stats.dispose();
      const poolRemoved = pool.dispose();
      terminals.dispose();
      touchReview.dispose();
      review.dispose();
      // Let running calls finish (a command gets its timeout's worth), but never hang quitting.
      const settle = Promise.allSettled([ready, agent.stopAll(), ...inFlight, poolRemoved]);
      await Promise.race([settle, new Promise((resolve) => setTimeout(resolve, DISPOSE_WAIT_MS).unref())]);
      await ports.dispose();
      await mcp.dispose();
      await manager.dispose();
      await egress.dispose().catch(() => undefined);
      store.close();
    },
  };
}

/** The sealed networks' range from the environment; a bad setting fails allowlist starts, not Berth's. */
function subnetPoolFrom(env: NodeJS.ProcessEnv): SubnetPool | BerthError {
  try {
    return parseSubnetPool(env.BERTH_EGRESS_POOL, env.BERTH_EGRESS_POOL_SIZE);
  } catch (error) {
    return error as BerthError;
  }
}

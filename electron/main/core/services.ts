/**
 * The services of one core, built once and wired to each other (core.ts returns the API over
 * them). Only construction lives here: what a request does is in handlers/, how a request is
 * checked and its errors worded in dispatch.ts.
 */
import os from 'node:os';
import path from 'node:path';
import { BERTH_BASE_IMAGE, DEFAULT_ENGINE_SETTING } from '../../../shared/contract.js';
import type { ProfileSettings } from '../../../shared/contract.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import { EventHub, MainEvents } from '../events.js';
import { EngineCheckGate } from '../sandbox/engineCheckGate.js';
import { sandboxUserFor, type HostUser } from '../policy/sandboxUser.js';
import { decideWritable } from '../policy/writableFolders.js';
import { systemClock } from '../base/clock.js';
import { KeyedThrottle } from '../base/keyedThrottle.js';
import { BaseImage } from '../sandbox/baseImage.js';
import { SandboxContainers } from '../sandbox/sandboxContainers.js';
import { DeletionService } from '../sandbox/deletionService.js';
import { SandboxService } from '../sandbox/sandboxService.js';
import { WarmPool } from '../sandbox/warmPool.js';
import { ImagePreparer, preparationHooks } from '../sandbox/imagePreparations.js';
import { EnvironmentService } from '../environment/environmentService.js';
import { followCopyRewrites } from '../terminal/copyRewrite.js';
import { McpServers, mcpContainer } from '../agent/mcp/mcpServers.js';
import { LIST_PORTS_COMMAND } from '../ports/common/listeningPorts.js';
import { ReviewEdits } from '../review/reviewEdits.js';
import { ReviewComments } from '../review/reviewComments.js';
import { ChatForks } from '../forks/chatForks.js';
import { RemoteHomes } from '../sandbox/remoteHomeCopy.js';
import { SessionService } from '../sessions/sessionService.js';
import { directlyWritableFolders } from '../sessions/mountedFolders.js';
import { directWriterOf } from '../policy/attachmentOverlap.js';
import { openDatabase } from '../store/database.js';
import { createStore, type ChatRecord } from '../store/repositories.js';
import { gatherHostFacts, resolveAttachableFolder } from '../workspace/folderValidation.js';
import { ChatFolders } from '../folders/chatFolders.js';
import { AttachConfirmations } from '../folders/attachConfirmations.js';
import { TerminalService } from '../terminal/terminalService.js';
import { BerthRestartMarks, RESTART_MARK_KEY } from '../terminal/berthRestart.js';
import { AgentService } from '../agent/agentService.js';
import { ProviderKeys } from '../agent/providerKeys.js';
import { streamChatCompletion } from '../agent/provider/openaiClient.js';
import { keyFileBox } from '../agent/secrets/secretBox.js';
import { ReviewService } from '../review/reviewService.js';
import { EgressService, type EgressOptions } from '../egress/egressService.js';
import { EgressImage } from '../egress/egressImage.js';
import { EGRESS_IMAGE } from '../policy/egressImage.js';
import { StatsService } from '../sandbox/statsService.js';
import { PortService } from '../ports/portService.js';
import type { CoreOptions } from './options.js';
import { engineRegistry, folderOwners, instanceIdOf, subnetPoolFrom } from './setup.js';

/** Terminal output tells the review service at most this often per chat (see touchReview). */
const REVIEW_TOUCH_MS = 100;

/** Everything a handler may use: the services and the few compositions several handlers share. */
export type Services = ReturnType<typeof buildServices>;

export function buildServices(options: CoreOptions) {
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
  const sandboxUser = (settings: ProfileSettings, mounts: readonly PlannedMount[]): string =>
    decideWritable(
      hostUser,
      settings.sandboxUser,
      folderOwners(mounts.filter((m) => m.origin === 'chat' && !m.readOnly).map((m) => m.source)),
      mounts.some((m) => m.origin === 'review' || m.origin === 'slot'),
    ).user;
  const containers = new SandboxContainers({
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
    sandboxUser,
    homeOwner: (_settings, user) => {
      if (hostUser.uid !== 0) return null;
      const [uid, gid] = user.split(':').map(Number);
      return { uid: uid as number, gid: gid as number };
    },
  });
  // Berth's own images made ahead (the full default environment, profiles' setup commands: sandbox/imagePreparations).
  const preparer: ImagePreparer = new ImagePreparer({
    engine, baseTag: baseImage.tag, engineIsLocal, env, egress: egressImage, profiles: store.profiles,
    networks: containers,
    onChange: (preparations) => events.emit('images.status', { preparations }),
    onDefaultReady: () => void Promise.all(store.profiles.list().filter((p) => p.settings.image === baseImage.tag).map((p) => pool.drop(p.name).then(() => fillPool(p)))),
    onSetupReady: (name) => void pool.drop(name).then(() => { const p = store.profiles.get(name); if (p) fillPool(p); }),
  });
  const sessions = new SessionService(store, clock, (p) => resolveAttachableFolder(p, hostFacts()));
  // Lower parts tell higher ones through these (events.ts): review/ before it uses a chat's copies, sandbox/ when its folders change.
  const mainEvents = new MainEvents();
  sessions.ensureDefaultProfile(baseImage.tag);
  // Review mode: per-chat copies of folders attached in that mode (review/). Its copies' life and
  // the record they belong to are the chat's folders' (folders/chatFolders.ts).
  const review: ReviewService = new ReviewService({
    dataDir,
    events,
    clock,
    mainEvents,
    attachments: (chatId) => folders.reviewAttachments(chatId),
    writableBySandbox: (hostPath) => directWriterOf(directlyWritableFolders(store), hostPath),
    chatTitle: (chatId) => store.chats.get(chatId)?.title ?? chatId,
    slotOf: (chatId) => {
      const chat = store.chats.get(chatId);
      return chat ? folders.slotOf(chat.profile, chatId) : null;
    },
    sessionFolders: (chatId) => store.attachments.forChat(chatId).filter((a) => a.provenance === 'session').map((a) => ({ hostPath: a.hostPath, mode: a.mode })),
    ...(options.slotHistoryMaxBytes !== undefined ? { slotHistoryMaxBytes: options.slotHistoryMaxBytes } : {}),
  });
  const folders: ChatFolders = new ChatFolders({
    store,
    sessions,
    review,
    hostFacts,
    clock,
    dataDir,
    copyOwner: (profileName) => {
      if (hostUser.uid !== 0) return null;
      const [uid, gid] = sandboxUserFor(hostUser, sessions.requireProfile(profileName).settings.sandboxUser).split(':').map(Number);
      return { uid: uid as number, gid: gid as number };
    },
    writeWarnings: (chat, readWrite, hasReviewCopies) =>
      decideWritable(hostUser, sessions.requireProfile(chat.profile).settings.sandboxUser, folderOwners(readWrite), hasReviewCopies).warnings,
  });
  const sandbox = new SandboxService(store, sessions, containers, events, clock, os.homedir(), folders, mainEvents);
  const restartMarks = new BerthRestartMarks({ load: () => store.settings.get(RESTART_MARK_KEY), save: (v) => store.settings.set(RESTART_MARK_KEY, v) });
  const terminals = new TerminalService(sandbox, containers, events, clock, mainEvents, restartMarks);
  // Review's writes into a remote sandbox's copies start it and its terminals again (terminal/copyRewrite).
  followCopyRewrites(mainEvents, sandbox, terminals);
  const pool = new WarmPool({
    store,
    engine,
    clock,
    sandbox,
    containers,
    folders,
    egressImage: egressImage.tag,
  });
  // Project environments (README: Environments): a chat's devcontainer.json, built and prepared once.
  const environments = new EnvironmentService({ store, sessions, sandbox, containers, events, mainEvents, clock, pool, instanceId });
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
      return r.target.kind === 'container' ? containers.homeFor(r.profile.name, r.target.key) : null;
    },
  });

  // Ports (README: Ports): forwards to the chat's running container, as its own user, on its own engine.
  const runningContainer = async (chatId: string) => {
    const s = await sandbox.status(chatId);
    if (s.state !== 'running' || !s.key || !s.containerId) return null;
    const engine = containers.engineOf(s.key);
    const user = (await engine.inspectContainer(s.containerId))?.user;
    return user ? { key: s.key, id: s.containerId, user, engine } : null;
  };
  const ports = new PortService({
    container: runningContainer,
    containers,
    saved: { get: () => store.settings.get('port_forwards') ?? undefined, set: (v) => store.settings.set('port_forwards', v) },
  });

  const secrets = options.secrets ?? (() => keyFileBox(dataDir, env));
  const keys = new ProviderKeys(store, secrets, clock);
  const mcp = new McpServers({
    container: (chatId) => mcpContainer(chatId, sandbox, runningContainer),
    containers,
    egress: (chatId) => sandbox.resolve(chatId).profile.settings.egress,
    connect: (c, host, port) => ports.connectFrom({ ...c, engine: containers.engineOf(c.key) }, host, port),
  });
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
      newPorts: (chatId, listing) =>
        ports.newPortsNote(chatId, listing !== undefined ? async () => listing : () => sandbox.exec({ chatId, command: LIST_PORTS_COMMAND[2] as string }, { sandboxOnly: true }).then((r) => r.output)),
      networkRefusals: (chatId, since, output) => egress.refusalNote(chatId, sessions.requireChat(chatId).profile, since, output),
      interrupt: (chatId, taskId) => sandbox.interrupt(chatId, taskId),
      folders: (chatId) =>
        folders
          .views(sessions.requireChat(chatId))
          .flatMap((a) => (a.containerPath === null ? [] : [{ containerPath: a.containerPath, readOnly: a.readOnly, hostPath: a.hostPath }])),
    },
  });

  /** Tokens confirming an attach or detach main judged beforehand (workspace.attachPreview). */
  const confirmations = new AttachConfirmations(clock);

  const reviewEdits = new ReviewEdits(review);
  const reviewComments = new ReviewComments({
    review, store: store.reviewComments, clock,
    folderOf: (chatId, hostPath) => folders.views(sessions.requireChat(chatId)).find((a) => a.hostPath === hostPath)?.containerPath ?? hostPath,
  });

  // Forks (chats.fork, chats.retry): above review/ and agent/, calling both down.
  const remoteHomes = new RemoteHomes({ instanceId, engines, containers, sandboxUser });
  const forks = new ChatForks({ dataDir, store, clock, review, sessions, homes: containers, remoteHomes, agent });

  const deletion = new DeletionService({ store, sessions, containers, engine, dataDir, mainEvents, ports, egress, pool, review, folders });
  // A chat being deleted: its agent turns and terminals end before it goes (DeletionService waits).
  mainEvents.on('chat.ending', async ({ chatId }) => {
    await agent.stopAll(chatId);
    terminals.closeForChat(chatId);
  });
  /** Warm sandboxes are kept on this computer's engine only (a remote one would hold volumes and copies idle there). */
  const fillPool = (profile: Parameters<WarmPool['fill']>[0]) => {
    if (profile.settings.engine.kind === 'default') pool.fill(profile);
  };

  const engineCheck = new EngineCheckGate({ engines, savedEngine: (name) => store.profiles.get(name)?.settings.engine ?? null, clock, log });
  /** A chat as the page lists it: its attachments and when the user last wrote in it. */
  const withAttachments = (chat: ChatRecord, lastActive?: Map<string, number>) =>
    sessions.chatView(chat, folders.views(chat), lastActive ? lastActive.get(chat.id) : store.agentMessages.lastUserMessageOf(chat.id));

  return {
    dataDir, clock, log, env, hostUser, store, instanceId, events, engines, engine, engineOfProfile, hostFacts,
    baseImage, egressImage, egress, containers, sessions, sandbox, folders, terminals, review, touchReview,
    stats, ports, keys, agent, deletion, pool, fillPool, engineCheck, withAttachments,
    preparer, environments, mcp, reviewEdits, reviewComments, confirmations, forks,
  };
}

/**
 * The composition root: builds the services once and returns the one API object that every
 * transport (in-process, Electron IPC, the browser host's JSON-RPC) exposes. Never imports
 * Electron, so it runs and is tested under plain Node.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_PROFILE, methods, type EngineSetting, type MethodName, type ParsedRequest, type Request, type Response } from '../../shared/contract.js';
import { BerthError } from '../../shared/errors.js';
import { DockerEngine, type Engine } from './engine/dockerEngine.js';
import { contextByName, currentContextHost } from './engine/dockerContext.js';
import { chooseEngine, type EngineChoice } from './policy/engineChoice.js';
import { EngineRegistry, type EngineHandle } from './sandbox/engineRegistry.js';
import { EventHub, type Disposable, type EventListener } from './events.js';
import { LABEL, APP_LABEL_VALUE } from './policy/containerSpec.js';
import { qualifyTaskId } from './policy/containerKey.js';
import { folderNameFor, networkNameFor } from './policy/names.js';
import { selectOrphans } from './policy/orphans.js';
import { clientRequestProblem } from './policy/clientPolicy.js';
import { sandboxUserFor, type HostUser } from './policy/sandboxUser.js';
import { systemClock, type Clock } from './sandbox/clock.js';
import { SandboxManager } from './sandbox/sandboxManager.js';
import { SandboxService } from './sandbox/sandboxService.js';
import { SessionService } from './sessions/sessionService.js';
import { openDatabase } from './store/database.js';
import { createStore, type ChatRecord, type Store } from './store/repositories.js';
import { gatherHostFacts, resolveAttachableFolder } from './workspace/folderValidation.js';
import { WorkspaceService } from './workspace/workspaceService.js';
import { browseFolders } from './workspace/folderBrowser.js';
import { TerminalService } from './terminal/terminalService.js';
import { AgentService, type Complete } from './agent/agentService.js';
import { createApiChats, type ApiChats } from './agent/apiChats.js';
import { ProviderKeys } from './agent/providerKeys.js';
import { streamChatCompletion } from './agent/provider/openaiClient.js';
import { keyFileBox, type SecretBox } from './agent/secrets/secretBox.js';

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
  /** Seals provider API keys at rest: Electron's safeStorage in the app; a key file by default. */
  secrets?: () => SecretBox;
  /** The OpenAI-compatible client (tests may wrap it; it still speaks real HTTP). */
  complete?: Complete;
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

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/**
 * Engines as profiles name them (shared/engines.ts): the default one is the engine the user's
 * Docker tools use, or the one a caller injected; a broken address still lets the app open and
 * say so (the registry turns a refused setting into an engine whose calls give the reason).
 */
function engineRegistry(env: NodeJS.ProcessEnv, injected: Engine | undefined, events: EventHub, clock: Clock): EngineRegistry {
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
    create: (choice) => (choice.ref.id === 'default' && injected ? injected : new DockerEngine(choice.endpoint)),
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

export function createCore(options: CoreOptions): BerthCore {
  const dataDir = path.resolve(options.dataDir);
  const clock = options.clock ?? systemClock;
  const env = options.env ?? process.env;
  const hostUser: HostUser = options.hostUser ?? {
    uid: process.getuid?.() ?? null,
    gid: process.getgid?.() ?? null,
    platform: process.platform,
  };
  const store = createStore(openDatabase(dataDir));
  const instanceId = instanceIdOf(store);
  const events = new EventHub();
  const engines = engineRegistry(env, options.engine, events, clock);
  const engineOfProfile = (name: string) => engines.forSetting(sessions.requireProfile(name).settings.engine);
  const hostFacts = () => gatherHostFacts(dataDir, env);

  const manager = new SandboxManager({
    engines: { forProfile: (settings) => engines.forSetting(settings.engine), all: () => engines.all() },
    instanceId,
    dataDir,
    hostFacts,
    clock,
    sandboxUser: (settings) => sandboxUserFor(hostUser, settings.sandboxUser),
    homeOwner: (settings) => {
      if (hostUser.uid !== 0) return null;
      const [uid, gid] = sandboxUserFor(hostUser, settings.sandboxUser).split(':').map(Number);
      return { uid: uid as number, gid: gid as number };
    },
  });
  const sessions = new SessionService(store, clock, (p) => resolveAttachableFolder(p, hostFacts()));
  sessions.ensureDefaultProfile();
  const sandbox = new SandboxService(store, sessions, manager, events, clock, os.homedir());
  const terminals = new TerminalService(sandbox, manager, events, clock);
  const workspace = new WorkspaceService(store, sessions, hostFacts, clock, (chat) => sandbox.containerExists(chat));

  const secrets = options.secrets ?? (() => keyFileBox(dataDir, env));
  const keys = new ProviderKeys(store, secrets, clock);
  const agent = new AgentService({
    store,
    sessions,
    keys,
    events,
    clock,
    complete: options.complete ?? streamChatCompletion,
    sandbox: {
      exec: (req, signal) => sandbox.exec(req, { signal, sandboxOnly: true }),
      interrupt: (chatId, taskId) => sandbox.interrupt(chatId, taskId),
      folders: (chatId) =>
        workspace
          .views(sessions.requireChat(chatId))
          .flatMap((a) => (a.containerPath === null ? [] : [{ containerPath: a.containerPath, readOnly: a.readOnly }])),
    },
  });

  const withAttachments = (chat: ChatRecord) => sessions.chatView(chat, workspace.views(chat));

  async function deleteChat(chat: ChatRecord): Promise<void> {
    await agent.stopAll(chat.id);
    terminals.closeForChat(chat.id);
    const taskIds = store.transaction(() => {
      const ids = store.tasks.deleteForChat(chat.id);
      for (const q of [...ids, ...sessions.ownedQualifiedIds(chat)]) store.cwd.clear(q);
      store.chats.delete(chat.id);
      return ids;
    });
    // The chat is gone from the store first: if Berth dies now, or the engine cannot be
    // reached, the reaper removes its containers later. Its homes go now either way.
    const local = sessions.requireProfile(chat.profile).settings.backend === 'local';
    const keys = local ? [] : await manager.removeForChat(chat.id).catch(() => [] as string[]);
    for (const key of new Set([...keys, qualifyTaskId(chat.profile, chat.id), ...taskIds])) {
      fs.rmSync(manager.homeFor(chat.profile, key), { recursive: true, force: true });
    }
  }

  /** Who is calling: a connected client (a window, a browser tab), or Berth itself (null). */
  interface CallContext {
    client: string | null;
  }
  const impl: { [M in MethodName]: (req: ParsedRequest<M>, ctx: CallContext) => Promise<Response<M>> } = {
    'profiles.list': async () => ({ profiles: store.profiles.list().map((p) => sessions.profileView(p)) }),
    'profiles.create': async (req) => changed(null, sessions.createProfile(req)),
    'profiles.update': async (req) => changed(null, sessions.updateProfile(req)),
    'profiles.delete': async (req) => {
      const profile = sessions.requireProfile(req.name);
      if (profile.name === 'default') {
        throw new BerthError('invalid_request', 'The default profile cannot be deleted.', { hint: 'Delete its chats instead.' });
      }
      const chats = store.chats.list(profile.name);
      for (const chat of chats) await deleteChat(chat);
      await manager.removeForProfile(profile.name);
      store.profiles.delete(profile.name);
      if (profile.settings.network === 'isolated') await engines.forSetting(profile.settings.engine).engine.removeNetwork(networkNameFor(profile.name)).catch(() => undefined);
      fs.rmSync(path.join(dataDir, 'profiles', folderNameFor(profile.name)), { recursive: true, force: true });
      return changed(null, { removedChats: chats.length });
    },
    'chats.create': async (req) => {
      const chat = withAttachments(sessions.createChat(req));
      return changed(chat.id, chat);
    },
    'chats.rename': async (req) => changed(req.chatId, withAttachments(sessions.renameChat(req.chatId, req.title))),
    'chats.list': async (req) => ({ chats: store.chats.list(req.profile).map(withAttachments) }),
    'chats.delete': async (req) => {
      const chat = store.chats.get(req.chatId);
      if (!chat) return { removed: false };
      await deleteChat(chat);
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
    'workspace.browse': async (req) => browseFolders(req.path),
    'sandbox.exec': (req) => sandbox.exec(req),
    'sandbox.interrupt': (req) => sandbox.interrupt(req.chatId, req.taskId),
    'sandbox.status': (req) => sandbox.status(req.chatId),
    'sandbox.stop': (req) => sandbox.stop(req.chatId),
    'engine.status': async (req) => {
      const { monitor } = engineOfProfile(req.profile ?? DEFAULT_PROFILE);
      return monitor.current().state === 'checking' ? monitor.check() : monitor.current();
    },
    'terminal.open': (req) => terminals.open(req.chatId, req.cols, req.rows),
    'terminal.list': async (req) => ({ terminals: terminals.list(req.chatId) }),
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
    'agent.send': async (req) => ({ message: agent.send(req.chatId, req.text).message }),
    'agent.stop': (req) => agent.stop(req.chatId),
    'agent.approve': async (req) => {
      agent.approve(req.chatId, req.approvalId, req.decision);
      return {};
    },
    'agent.setKey': async (req) => {
      const profile = sessions.requireProfile(req.profile);
      return keys.set(profile.name, profile.settings.agent.baseUrl, req.apiKey);
    },
    'agent.clearKey': async (req) => keys.clear(sessions.requireProfile(req.profile).name),
    'agent.keyStatus': async (req) => keys.status(sessions.requireProfile(req.profile).name),
  };

  /** A chat's open terminals run in a container without the new folders: end them, saying why. */
  function foldersChanged<T extends { notice: string | null }>(chatId: string, result: T): T {
    if (result.notice) terminals.endForChat(chatId, 'The chat’s folders changed. Restart the terminal to use the sandbox with them.');
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
      // The cause stays attached for logs; the user gets words, not a stack's first line.
      throw new BerthError('internal', `Berth could not complete ${name} because of an internal error.`, {
        hint: 'Try again; if it keeps happening, restart Berth.',
        cause: error,
      });
    }
  }

  /** Sweeps every engine the profiles name; one engine that does not answer fails the sweep after the others. */
  async function reap(): Promise<number> {
    if (disposed) return 0;
    for (const p of store.profiles.list()) if (p.settings.backend === 'docker') engines.forSetting(p.settings.engine);
    const counts = await Promise.allSettled(engines.all().map((handle) => reapOn(handle)));
    const failed = counts.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return counts.reduce((n, r) => n + (r.status === 'fulfilled' ? r.value : 0), 0);
  }

  async function reapOn(handle: EngineHandle): Promise<number> {
    const { engine } = handle;
    const mine = await engine.findContainers({ [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: instanceId });
    const orphans = selectOrphans(mine, instanceId, (id) => store.chats.get(id) !== undefined, (p) => store.profiles.get(p) !== undefined);
    await Promise.all(orphans.map((c) => manager.removeContainer(c.id, c.labels[LABEL.key], engine).catch(() => undefined)));
    // A remote engine's homes and folder copies are volumes of their key: they go with it.
    if (handle.ref.remote) {
      await Promise.all(orphans.map((c) => engine.removeVolumes({ [LABEL.instance]: instanceId, [LABEL.key]: c.labels[LABEL.key] ?? '' }).catch(() => undefined)));
    }
    for (const c of mine) {
      if (orphans.includes(c) || !c.running) continue;
      const profile = store.profiles.get(c.labels[LABEL.profile] ?? '');
      if (profile && c.labels[LABEL.key]) manager.adopt(c.labels[LABEL.key] as string, c.id, profile.settings, handle);
    }
    return orphans.length;
  }

  const interval = options.reapIntervalMs ?? DEFAULT_REAP_INTERVAL_MS;
  let reapTimer: unknown = null;
  const scheduleReap = () => {
    if (interval <= 0 || disposed) return;
    reapTimer = clock.setTimeout(() => {
      void reap().catch(() => undefined).finally(scheduleReap);
    }, interval);
  };
  // The engine may be down at start: the first sweep then waits for the next one.
  const ready = reap().then(() => undefined, () => undefined);
  events.on((event, payload) => {
    if (event === 'engine.status' && (payload as { state: string }).state === 'ok') manager.forgetEngineErrors();
  });
  scheduleReap();

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
    call,
    connectClient() {
      const id = randomUUID();
      terminals.addClient(id);
      return {
        id,
        call: (method, params) => callFromClient(method, params, { client: id }),
        dispose: () => terminals.removeClient(id),
      };
    },
    onEvent: (listener) => events.on(listener),
    reap,
    ready,
    instanceId,
    async dispose() {
      if (disposed) return;
      disposed = true;
      if (reapTimer !== null) clock.clearTimeout(reapTimer);
      engines.dispose();
      terminals.dispose();
      // Let running calls finish (a command gets its timeout's worth), but never hang quitting.
      const settle = Promise.allSettled([ready, agent.stopAll(), ...inFlight]);
      await Promise.race([settle, new Promise((resolve) => setTimeout(resolve, DISPOSE_WAIT_MS).unref())]);
      await manager.dispose();
      store.close();
    },
  };
}

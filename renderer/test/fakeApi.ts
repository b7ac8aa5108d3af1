/**
 * An in-memory stand-in for the BerthApi interface, for store and component tests only: it
 * keeps just enough state (profiles, chats, attachments, terminals, conversations, whether a key
 * is stored) to answer like main, records every call, and lets a test emit events (pushAgent for
 * the agent's) or make a method fail. It is not a model of the core: the agent never answers by
 * itself.
 */
import type {
  AttachmentView,
  ChatView,
  Checkpoint,
  ReviewComment,
  CopyChanges,
  DirectoryListing,
  EngineStatus,
  EventName,
  EventPayload,
  KeyStatus,
  MethodName,
  ProfileSettings,
  ProfileView,
  Request,
  Response,
  SandboxStatus,
  TerminalView,
} from '../../shared/contract';
import type { ChatGrant, NetworkRequest } from '../../shared/egress';
import { ApiError } from '../api/errors';
import type { BerthApi, ConnectionInfo, ConnectionSource, PickFolderResult, Picked } from '../api/types';
import { forkHandlers } from './fakeFork';
import { networkHandlers } from './fakeNetwork';
import { reviewCommentHandlers } from './fakeReviewComments';
import { agentMessage, chatView, countChanges, freshId, noEnvironment, OK_ENGINE, profileView, reviewInfo, type AgentEventName, type FakeConversation } from './fakeViews';

export * from './fakeViews';

type Handler<M extends MethodName> = (params: Request<M>) => Response<M> | Promise<Response<M>>;
type Handlers = { [M in MethodName]?: Handler<M> };

export interface FakeCall {
  method: MethodName;
  params: unknown;
}

export interface FakeApi extends BerthApi {
  calls: FakeCall[];
  callsTo(method: MethodName): unknown[];
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Replaces how a method answers. */
  handle<M extends MethodName>(method: M, handler: Handler<M>): void;
  /** Makes a method reject, as main does, with a message and a hint. */
  fail(method: MethodName, code: string, message: string, hint?: string): void;
  /** Undoes `fail`: the method answers again. */
  unfail(method: MethodName): void;
  profiles: ProfileView[];
  chats: ChatView[];
  engine: EngineStatus;
  terminals: TerminalView[];
  sandbox: Map<string, SandboxStatus>;
  /** What pickFolder answers ('browse' like the browser host, or a desktop answer). */
  pickFolderResult: PickFolderResult | Error;
  /** What confirmFolder answers when told to attach (the desktop's second step; 'cancelled' when told not to). */
  confirmFolderResult: Picked | 'cancelled' | Error;
  /** A folder tree for workspace.browse: path → child folder names. */
  folders: Record<string, string[]>;
  /** Folders attach would refuse, with why (workspace.browse's `refused`). */
  refusedFolders: Record<string, string>;
  /** What engine.resources answers: the engine's CPUs and memory. */
  resources: { cpus: number; memoryBytes: number };
  connection: ConnectionSource & { set(info: Partial<ConnectionInfo>): void };
  /** What agent.history answers, per chat (empty when a chat has none). */
  conversations: Record<string, FakeConversation>;
  /** Saved API keys per profile, as agent.keyStatus reports them (the key itself is not kept). */
  keys: Record<string, KeyStatus>;
  /** What agent.models lists (the provider's /v1/models). */
  providerModels: string[];
  /** Pushes an agent event (a message, a delta, a turn's state, an approval) as main would. */
  pushAgent<E extends AgentEventName>(event: E, payload: EventPayload<E>): void;
  /** What review.changes answers, per chat (Review-mode copies and their changed files). */
  reviewCopies: Record<string, CopyChanges[]>;
  /** What review.checkpoints answers, per chat. */
  checkpoints: Record<string, Checkpoint[]>;
  /** The chats' review comments (review.comment adds a draft; review.sendComments marks the drafts sent). */
  reviewComments: ReviewComment[];
  /** The ports each chat's sandbox listens on (ports.list), and their open forwards' host ports. */
  ports: Record<string, { port: number; hostPort: number | null }[]>;
  /** What environment.detect answers, per chat (folders with a devcontainer.json, the environment's status). */
  environments: Record<string, Response<'environment.detect'>>;
  /** What network.log answers, per chat: its requests, and its own allowances (network.allow once/chat). */
  network: Record<string, { requests: NetworkRequest[]; grants: ChatGrant[] }>;
}

export interface FakeSeed {
  profiles?: ProfileView[];
  chats?: ChatView[];
  engine?: EngineStatus;
  conversations?: Record<string, FakeConversation>;
}

function fakeForward(port: number, hostPort: number) {
  return { port, hostPort, url: `http://127.0.0.1:${hostPort}/?berth_secret=fake` };
}

function notFound(what: string): ApiError {
  return new ApiError('not_found', `There is no ${what} like that.`);
}

export function createFakeApi(seed: FakeSeed = {}): FakeApi {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const handlers: Handlers = {};
  const failures = new Map<MethodName, ApiError>();
  const connectionListeners = new Set<(info: ConnectionInfo) => void>();
  let connectionInfo: ConnectionInfo = { transport: 'ws', state: 'open', epoch: 1, retryAt: null };
  let terminalCount = 0;
  /** workspace.attachPreview's tokens, numbered. */
  let confirmCount = 0;
  /** Each chat's last terminal number, as main counts them (never reused). */
  const terminalNumbers = new Map<string, number>();
  /** As main: "Chat N", a number never given twice. */
  let chatNumber = 0;

  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const l of [...(listeners.get(event) ?? [])]) l(payload);
  };
  const changed = (chatId: string | null) => queueMicrotask(() => emit('chats.changed', { chatId }));

  const fake: FakeApi = {
    calls: [],
    profiles: seed.profiles ?? [profileView('default')],
    chats: seed.chats ?? [],
    engine: seed.engine ?? OK_ENGINE,
    terminals: [],
    sandbox: new Map(),
    pickFolderResult: 'browse',
    confirmFolderResult: 'picked',
    conversations: seed.conversations ?? {},
    keys: {},
    providerModels: ['test-model'],
    reviewCopies: {},
    checkpoints: {},
    reviewComments: [],
    ports: {},
    environments: {},
    network: {},
    pushAgent: (event, payload) => emit(event, payload),
    refusedFolders: {},
    resources: { cpus: 8, memoryBytes: 16 * 1024 ** 3 },
    folders: { '/home/me': ['projects', 'notes'], '/home/me/projects': ['site'], '/home/me/projects/site': [], '/home/me/notes': [] },

    callsTo(method) {
      return fake.calls.filter((c) => c.method === method).map((c) => c.params);
    },
    emit,
    handle(method, handler) {
      (handlers as Record<string, unknown>)[method] = handler;
    },
    fail(method, code, message, hint) {
      failures.set(method, new ApiError(code, message, hint));
    },
    unfail(method) {
      failures.delete(method);
    },

    async call<M extends MethodName>(method: M, params: Request<M>): Promise<Response<M>> {
      fake.calls.push({ method, params });
      await Promise.resolve();
      const failure = failures.get(method);
      if (failure) throw failure;
      const custom = handlers[method] as Handler<M> | undefined;
      if (custom) return custom(params);
      return (defaults[method] as Handler<M>)(params);
    },

    on(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => set.delete(l);
    },

    async pickFolder(chatId, choice) {
      fake.calls.push({ method: 'workspace.attach', params: { via: 'pickFolder', chatId, ...choice } });
      await Promise.resolve();
      if (fake.pickFolderResult instanceof Error) throw fake.pickFolderResult;
      return fake.pickFolderResult;
    },

    async confirmFolder(token, attach) {
      fake.calls.push({ method: 'workspace.attach', params: { via: 'confirmFolder', token, attach } });
      await Promise.resolve();
      if (fake.confirmFolderResult instanceof Error) throw fake.confirmFolderResult;
      return attach ? fake.confirmFolderResult : 'cancelled';
    },

    connection: {
      get: () => connectionInfo,
      subscribe(listener) {
        connectionListeners.add(listener);
        return () => connectionListeners.delete(listener);
      },
      set(info) {
        connectionInfo = { ...connectionInfo, ...info };
        for (const l of [...connectionListeners]) l(connectionInfo);
      },
    },
  };

  const chat = (chatId: string) => {
    const c = fake.chats.find((x) => x.id === chatId);
    if (!c) throw notFound('chat');
    return c;
  };
  const terminal = (terminalId: string) => {
    const t = fake.terminals.find((x) => x.terminalId === terminalId);
    if (!t) throw notFound('terminal');
    return t;
  };
  const conversation = (chatId: string): FakeConversation =>
    (fake.conversations[chatId] ??= { messages: [], running: false, approvals: [] });
  const keyStatus = (profile: string): KeyStatus => fake.keys[profile] ?? { profile, hasKey: false, origin: null };
  const status = (chatId: string): SandboxStatus =>
    fake.sandbox.get(chatId) ?? { chatId, state: 'none', key: null, containerId: null, containerName: null, image: null, networkName: null, error: null };

  const defaults: { [M in MethodName]: Handler<M> } = {
    'profiles.list': () => ({ profiles: fake.profiles }),
    'profiles.create': ({ name, ...settings }) => {
      if (fake.profiles.some((p) => p.name === name)) throw new ApiError('already_exists', `A profile named ${name} exists.`);
      const p = profileView(name, settings as Partial<ProfileSettings>);
      fake.profiles = [...fake.profiles, p];
      changed(null);
      return p;
    },
    'profiles.update': ({ name, settings }) => {
      const old = fake.profiles.find((p) => p.name === name);
      if (!old) throw notFound('profile');
      // As main: the agent's settings merge field by field (what a save leaves out stays).
      const next = settings as Partial<ProfileSettings>;
      const p = profileView(name, { ...old.settings, ...next, agent: next.agent ? { ...old.settings.agent, ...next.agent } : old.settings.agent });
      fake.profiles = fake.profiles.map((x) => (x.name === name ? p : x));
      changed(null);
      return p;
    },
    'profiles.delete': ({ name }) => {
      const removed = fake.chats.filter((c) => c.profile === name).length;
      fake.profiles = fake.profiles.filter((p) => p.name !== name);
      fake.chats = fake.chats.filter((c) => c.profile !== name);
      changed(null);
      return { removedChats: removed };
    },
    'chats.create': ({ profile, title, image }) => {
      const c = chatView({ profile: profile ?? 'default', title: title ?? `Chat ${++chatNumber}`, image: image ?? null, createdAt: Date.now() + freshId() });
      fake.chats = [...fake.chats, c];
      changed(c.id);
      return c;
    },
    'chats.rename': ({ chatId, title }) => {
      const c = { ...chat(chatId), title: title.trim() };
      fake.chats = fake.chats.map((x) => (x.id === chatId ? c : x));
      changed(chatId);
      return c;
    },
    'chats.list': ({ profile }) => ({ chats: fake.chats.filter((c) => profile === undefined || c.profile === profile) }),
    'chats.delete': ({ chatId }) => {
      const had = fake.chats.some((c) => c.id === chatId);
      fake.chats = fake.chats.filter((c) => c.id !== chatId);
      changed(chatId);
      return { removed: had };
    },
    ...forkHandlers(fake, changed),
    'tasks.register': () => ({ key: null }),
    'workspace.attach': ({ chatId, path, readOnly, mode, contents }) => {
      const c = chat(chatId);
      const name = path.split('/').filter(Boolean).pop() ?? 'root';
      const m = mode ?? (readOnly === undefined ? 'review' : readOnly ? 'readonly' : 'readwrite');
      const attachment: AttachmentView = {
        hostPath: path,
        containerPath: `/workspace/${name}`,
        readOnly: m === 'readonly',
        mode: m,
        review: m === 'review' ? reviewInfo(chatId, contents) : null,
        attachedAt: 1,
        writeWarning: null,
      };
      const attachments = [...c.attachments.filter((a) => a.hostPath !== path), attachment];
      fake.chats = fake.chats.map((x) => (x.id === chatId ? { ...c, attachments } : x));
      changed(chatId);
      return { attachment, attachments, notice: null };
    },
    'workspace.detach': ({ chatId, path }) => {
      const c = chat(chatId);
      const attachments = c.attachments.filter((a) => a.hostPath !== path);
      fake.chats = fake.chats.map((x) => (x.id === chatId ? { ...c, attachments } : x));
      changed(chatId);
      return { attachments, notice: null };
    },
    'sandbox.exec': () => ({ exitCode: 0, output: '', outputBytes: 0, truncated: false, timedOut: false, cwd: '/home/berth', durationMs: 1, notices: [] }),
    'sandbox.interrupt': () => ({ interrupted: false }),
    'sandbox.status': ({ chatId }) => status(chatId),
    'sandbox.stop': ({ chatId }) => ({ ...status(chatId), state: 'stopped' }),
    'sandbox.watchStats': ({ chatId }) => ({ watching: status(chatId).state === 'running' }),
    'sandbox.unwatchStats': () => ({}),
    'sandbox.usage': ({ chatId }) => ({ chatId, homeBytes: 4096, homeCapped: false, writableLayerBytes: 0 }),
    'engine.status': () => fake.engine,
    'engine.list': () => ({ engines: [fake.engine] }),
    'engine.check': () => fake.engine,
    'engine.contexts': () => ({ contexts: [{ name: 'default', host: 'unix:///var/run/docker.sock', current: true }] }),
    'images.status': () => ({ preparations: [] }),
    'engine.images': () => ({ images: ['berth-test:busybox'], baseImage: 'berth-sandbox:1' }),
    'engine.resources': () => fake.resources,
    'workspace.browse': ({ path }): DirectoryListing => {
      const at = path ?? '/home/me';
      const names = fake.folders[at];
      if (!names) throw new ApiError('not_found', `${at} is not a folder.`);
      const parent = at === '/' ? null : at.slice(0, at.lastIndexOf('/')) || '/';
      return { path: at, parent, entries: names.map((name) => ({ name, path: `${at === '/' ? '' : at}/${name}` })), refused: fake.refusedFolders[at] ?? null };
    },
    'terminal.open': ({ chatId, cols, rows, replaces }) => {
      chat(chatId);
      // As main names them: per chat, and a restart keeps the name of the terminal it replaces.
      const replaced = fake.terminals.find((x) => x.terminalId === replaces && x.chatId === chatId);
      const nextTitle = () => {
        const number = (terminalNumbers.get(chatId) ?? 0) + 1;
        terminalNumbers.set(chatId, number);
        return `Terminal ${number}`;
      };
      const t: TerminalView = { terminalId: `term-${++terminalCount}`, chatId, title: replaced?.title ?? nextTitle(), state: 'running', exitReason: null, cols: cols ?? 80, rows: rows ?? 24 };
      fake.terminals = [...fake.terminals, t];
      return t;
    },
    'terminal.list': ({ chatId }) => ({ terminals: fake.terminals.filter((t) => t.chatId === chatId) }),
    'terminal.busy': () => ({ terminals: [] }),
    // As main answers for a chat without a warm sandbox: every change of its folders recreates it,
    // so it is asked about when something runs in its terminals (terminal.busy, as a test sets it).
    'workspace.attachPreview': async ({ chatId }) => {
      const { terminals: running } = await (handlers['terminal.busy'] ?? defaults['terminal.busy'])({ chatId });
      return {
        recreates: true, reason: 'Docker cannot add a folder to a running container', running, needsConfirmation: running.length > 0,
        summary: running.length > 0 ? 'Restarts the chat’s sandbox, stopping what runs.' : 'Restarts the chat’s sandbox; nothing runs in its terminals.', token: `confirm-${++confirmCount}`,
      };
    },
    'terminal.input': ({ terminalId }) => {
      terminal(terminalId);
      return {};
    },
    'terminal.resize': () => ({}),
    'terminal.replay': ({ terminalId }) => {
      terminal(terminalId);
      return { data: '' };
    },
    'terminal.ack': () => ({}),
    'terminal.close': ({ terminalId }) => {
      fake.terminals = fake.terminals.filter((t) => t.terminalId !== terminalId);
      return {};
    },
    'agent.waiting': () => ({ approvals: Object.values(fake.conversations).flatMap((c) => c.approvals) }),
    'agent.history': ({ chatId }) => {
      const c = conversation(chatId);
      return { messages: [...c.messages], running: c.running, approvals: [...c.approvals], allowedForChat: c.allowedForChat ?? false, options: c.options ?? { instructions: true, model: null } };
    },
    'agent.setOptions': ({ chatId, instructions, model }) => {
      const c = conversation(chatId);
      const now = c.options ?? { instructions: true, model: null };
      c.options = { instructions: instructions ?? now.instructions, model: model === undefined ? now.model : model };
      return c.options;
    },
    'agent.models': ({ chatId }) => ({ models: fake.providerModels, current: conversation(chatId).options?.model ?? null }),
    // Only records the user's message: tests push the agent's side with pushAgent.
    'agent.send': ({ chatId, text }) => {
      const message = agentMessage({ chatId, role: 'user', content: text.trim(), createdAt: Date.now() });
      conversation(chatId).messages.push(message);
      return { message };
    },
    'agent.stop': ({ chatId }) => ({ stopped: conversation(chatId).running }),
    'agent.approve': () => ({}),
    'agent.revokeAllow': ({ chatId }) => {
      conversation(chatId).allowedForChat = false;
      queueMicrotask(() => emit('agent.allowed', { chatId, allowed: false }));
      return {};
    },
    'agent.setKey': ({ profile }) => {
      const p = fake.profiles.find((x) => x.name === profile);
      if (!p) throw notFound('profile');
      const url = p.settings.agent.baseUrl;
      fake.keys[profile] = { profile, hasKey: true, origin: url === null ? null : new URL(url).origin };
      return keyStatus(profile);
    },
    'agent.clearKey': ({ profile }) => {
      delete fake.keys[profile];
      return keyStatus(profile);
    },
    'agent.keyStatus': ({ profile }) => keyStatus(profile),
    'review.changes': ({ chatId, hostPath }) => ({
      copies: (fake.reviewCopies[chatId] ?? []).filter((c) => hostPath === undefined || c.hostPath === hostPath),
    }),
    'review.diff': ({ chatId, hostPath, path }) => {
      const file = fake.reviewCopies[chatId]?.find((c) => c.hostPath === hostPath)?.files.find((f) => f.path === path);
      if (!file) throw notFound('changed file');
      return file;
    },
    // Answers like main with nothing in the way; tests replace it (handle) for conflicts.
    'review.apply': ({ chatId, hostPath, mode, files }) => {
      const copy = fake.reviewCopies[chatId]?.find((c) => c.hostPath === hostPath);
      const applied = (copy?.files ?? []).map((f) => f.path).filter((p) => files === undefined || files.includes(p));
      const branch = mode === 'branch' ? (copy?.exportBranch ?? 'berth/the-chat') : null;
      // Main's files apply can be taken back (review.undoApply) until the next one.
      if (copy && !branch) copy.lastApply = { files: applied, at: Date.now() };
      if (copy && branch) copy.exportBranch = branch;
      return { ok: true, applied, problems: [], branch, message: branch ? `Created branch ${branch}.` : `Applied ${applied.length} files.` };
    },
    // Answers like main for a GitHub remote; tests replace it (handle) for refusals.
    'review.push': ({ chatId, hostPath }) => {
      const branch = fake.reviewCopies[chatId]?.find((c) => c.hostPath === hostPath)?.exportBranch;
      if (!branch) throw new ApiError('invalid_request', 'There is no branch to push yet.', 'Create the branch from the Changes panel first, then push it.');
      return {
        ok: true, branch, remote: 'origin', remoteUrl: 'git@github.com:acme/site.git', output: `To github.com:acme/site.git\n*\trefs/heads/${branch}:refs/heads/${branch}\t[new branch]\nDone\n`,
        message: `Pushed ${branch} to origin.`, pullRequestUrl: `https://github.com/acme/site/compare/main...${encodeURIComponent(branch)}?expand=1`,
      };
    },
    'review.undoApply': ({ chatId, hostPath }) => {
      const copy = fake.reviewCopies[chatId]?.find((c) => c.hostPath === hostPath);
      const last = copy?.lastApply;
      if (!copy || !last) throw new ApiError('invalid_request', `There is no apply to undo for "${hostPath}".`, 'Reload the Changes panel.');
      copy.lastApply = null;
      return { ok: true, restored: last.files, problems: [], message: `Undid the apply: ${last.files.length} files in ${hostPath} are back as they were.` };
    },
    'review.discard': ({ chatId, hostPath }) => {
      const copy = fake.reviewCopies[chatId]?.find((c) => c.hostPath === hostPath);
      const discarded = copy?.files.length ?? 0;
      if (copy) fake.reviewCopies[chatId] = fake.reviewCopies[chatId]!.map((c) => (c === copy ? { ...c, files: [], counts: countChanges([]) } : c));
      return { discarded, message: `Discarded ${discarded} changed files.` };
    },
    'review.refresh': () => ({ updated: [], merged: [], conflicts: [], message: 'Your folder had no newer changes.' }),
    // Answers like main with nothing in the way; tests replace it (handle) for conflicts.
    'review.applyLines': ({ files }) => ({ ok: true, applied: files.map((f) => f.path), conflicts: [], problems: [], message: `Applied the chosen lines of ${files.length} files.` }),
    'review.conflict': ({ path }) => ({ path, conflicts: 1, segments: [{ kind: 'same', lines: ['top'] }, { kind: 'conflict', base: ['base line'], mine: ['my line'], chat: ['chat line'] }] }),
    'review.resolve': ({ path }) => ({ ok: true, applied: [path], problems: [], message: `Resolved "${path}".` }),
    ...reviewCommentHandlers(fake.reviewComments),
    'review.checkpoint': ({ chatId, label }) => {
      const cp: Checkpoint = { id: `cp-${freshId()}`, chatId, reason: 'manual', messageId: null, label: label ?? 'Checkpoint', createdAt: Date.now(), changedFiles: [] };
      (fake.checkpoints[chatId] ??= []).push(cp);
      return cp;
    },
    'review.checkpoints': ({ chatId }) => ({ checkpoints: [...(fake.checkpoints[chatId] ?? [])] }),
    'review.restore': () => ({ restored: [], message: 'Restored.' }),
    'review.undoTurn': ({ chatId, messageId }) => {
      const cp = fake.checkpoints[chatId]?.find((c) => c.messageId === messageId);
      if (!cp) throw notFound('turn');
      return { restored: cp.changedFiles, message: `Undid this turn: ${cp.changedFiles.length} files restored.` };
    },
    'ports.list': ({ chatId }) => ({
      running: chatId in fake.ports,
      ports: (fake.ports[chatId] ?? []).map((p) => ({ port: p.port, forward: p.hostPort === null ? null : fakeForward(p.port, p.hostPort) })),
    }),
    'ports.open': ({ chatId, port }) => {
      const p = fake.ports[chatId]?.find((x) => x.port === port);
      if (!p) throw new ApiError('invalid_request', `Nothing listens on port ${port} in the chat's sandbox.`);
      p.hostPort ??= 40000 + port;
      return fakeForward(port, p.hostPort);
    },
    'ports.close': ({ chatId, port }) => {
      const p = fake.ports[chatId]?.find((x) => x.port === port);
      const closed = p?.hostPort != null;
      if (p) p.hostPort = null;
      return { closed };
    },
    // Project environments: none offered unless a test seeds fake.environments.
    'environment.detect': ({ chatId }) => fake.environments[chatId] ?? { offers: [], status: noEnvironment(chatId) },
    'environment.use': ({ chatId, folder, config }) => ({ ...noEnvironment(chatId), state: 'ready', folder, source: config, image: 'berth-env:fake', preparedAt: 1, sizeBytes: 1024 }),
    'environment.rebuild': ({ chatId }) => ({ ...noEnvironment(chatId), state: 'ready', image: 'berth-env:fake' }),
    'environment.settings': ({ keep }) => ({ keep: keep ?? 5 }),
    ...networkHandlers(fake, emit),
  };

  return fake;
}

/**
 * The contract between the renderer (or any client) and the main process: every method's
 * request and response, and every event, written once. Main validates each request against
 * these schemas before acting; the renderer is untrusted.
 */
import { z } from 'zod';
import { AgentSettings, DEFAULT_AGENT_SETTINGS, agentEvents, agentMethods } from './agent.js';
import { AttachMode, CopyContents, ReviewCopyInfo, attachModeOf, reviewEvents, reviewMethods } from './review.js';
import { reviewCommentMethods } from './reviewComments.js';
import { forkMethods } from './fork.js';
import { DEFAULT_EGRESS, DEFAULT_EGRESS_ALLOW, EgressAllowEntry, EgressMode, egressEvents, egressMethods } from './egress.js';
import { DEFAULT_ENGINE_SETTING, DockerContextView, EngineRef, EngineSetting } from './engines.js';
import { portsMethods } from './ports.js';
import { environmentEvents, environmentMethods } from './environment.js';
import { ImagePreparations } from './imagePreparation.js';
import { ExecResult, SandboxStatsSample, SandboxUsage } from './sandboxReadings.js';

export * from './agent.js';
export * from './engines.js';
export * from './review.js';
export * from './reviewComments.js';
export * from './fork.js';
export * from './egress.js';
export * from './ports.js';
export * from './environment.js';

// ---------- profiles ----------

export { ExecResult, SandboxStatsSample, SandboxUsage } from './sandboxReadings.js';

export const PROFILE_NAME_MAX = 64;
export const DEFAULT_PROFILE = 'default';

export const ProfileName = z
  .string()
  .trim()
  .min(1, 'A profile needs a name.')
  .max(PROFILE_NAME_MAX, `A profile name has at most ${PROFILE_NAME_MAX} characters.`)
  // eslint-disable-next-line no-control-regex
  .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'A profile name cannot contain control characters.');

export const StaticMount = z.object({
  source: z.string().min(1),
  target: z.string().startsWith('/', 'A mount target is an absolute path inside the sandbox.'),
  readOnly: z.boolean().default(true),
});
export type StaticMount = z.infer<typeof StaticMount>;

export const ResourceLimits = z.object({
  memoryMb: z.number().int().min(64).max(1024 * 1024).default(2048),
  cpus: z.number().min(0.1).max(256).default(2),
  pids: z.number().int().min(16).max(1_000_000).default(512),
});
export type ResourceLimits = z.infer<typeof ResourceLimits>;

export const Retention = z.object({
  /** Stop a chat's container after this many idle minutes; 0 keeps it running. */
  idleStopMinutes: z.number().min(0).max(7 * 24 * 60).default(30),
  /** What quitting the app does to running containers. */
  onQuit: z.enum(['stop', 'keep']).default('stop'),
});
export type Retention = z.infer<typeof Retention>;

/**
 * Berth's own sandbox image, the default profile's: built by Berth itself on first use when the
 * engine does not have it (Debian where a registry answers, else a local busybox one).
 */
export const BERTH_BASE_IMAGE = 'berth-sandbox:1';

/** Each setting's rule, without its default: shared by full settings and by edits. */
const settingFields = {
  /**
   * 'docker' runs commands in containers. 'local' runs them directly on this computer with
   * the user's own permissions: there is no sandbox boundary at all.
   */
  backend: z.enum(['docker', 'local']),
  image: z.string().trim().min(1).max(512),
  /** What the sandbox can reach: nothing, the allowlist through Berth's proxy, or everything (shared/egress.ts). */
  egress: EgressMode,
  /** Where 'allowlist' lets the sandbox go: `host`, `*.domain`, either with `:port` (80 and 443 without). */
  egressAllow: z.array(EgressAllowEntry).max(500),
  /** 'chat': a container per chat. 'shared': one container for the whole profile. */
  containerScope: z.enum(['chat', 'shared']),
  mountWorkspace: z.boolean(),
  limits: ResourceLimits,
  retention: Retention,
  /** The uid:gid the sandbox runs as when Berth itself runs as root (otherwise the host user's). */
  sandboxUser: z
    .string()
    .regex(/^\d+:\d+$/, 'The sandbox user is written uid:gid, for example 1000:1000.')
    .refine((v) => !/^0+:\d+$/.test(v), 'The sandbox never runs as root (uid 0).')
    .refine((v) => !/^\d+:0+$/.test(v), "The sandbox never runs in root's group (gid 0)."),
  /** A folder whose configuration files seed each new chat's home. */
  homeTemplate: z.string().min(1).nullable(),
  staticMounts: z.array(StaticMount).max(32),
  /** The chat agent's model and approval rule. */
  agent: AgentSettings,
  /**
   * How many started sandboxes the profile keeps ready for new chats (0: none), so a new
   * chat's first command answers at once. Each is an idle running container until taken.
   */
  warmPool: z.number().int().min(0).max(8),
  /** Which container engine this profile's chats run on (shared/engines.ts). */
  engine: EngineSetting,
  /** Run once as root in a build step FROM the image, with the profile's egress; chats start from the result (README: Setup command). */
  setupCommand: z.string().max(4000).nullable(),
};

export const ProfileSettings = z.object({
  backend: settingFields.backend.default('docker'),
  image: settingFields.image.default(BERTH_BASE_IMAGE),
  egress: settingFields.egress.default(DEFAULT_EGRESS),
  egressAllow: settingFields.egressAllow.default([...DEFAULT_EGRESS_ALLOW]),
  containerScope: settingFields.containerScope.default('chat'),
  mountWorkspace: settingFields.mountWorkspace.default(true),
  limits: settingFields.limits.default({ memoryMb: 2048, cpus: 2, pids: 512 }),
  retention: settingFields.retention.default({ idleStopMinutes: 30, onQuit: 'stop' }),
  sandboxUser: settingFields.sandboxUser.default('1000:1000'),
  homeTemplate: settingFields.homeTemplate.default(null),
  staticMounts: settingFields.staticMounts.default([]),
  agent: settingFields.agent.default(DEFAULT_AGENT_SETTINGS),
  warmPool: settingFields.warmPool.default(0),
  engine: settingFields.engine.default(DEFAULT_ENGINE_SETTING),
  setupCommand: settingFields.setupCommand.default(null),
});
/** An edit: only the settings it names change (a nested object is replaced whole). */
export const ProfileSettingsPatch = z.object(settingFields).partial().strict();
export type ProfileSettings = z.infer<typeof ProfileSettings>;
export type ProfileSettingsInput = z.input<typeof ProfileSettings>;

export const ProfileView = z.object({
  name: z.string(),
  settings: ProfileSettings,
  networkName: z.string().nullable(),
  /** Plain words about what this profile's boundary is and is not. */
  boundary: z.string(),
  createdAt: z.number(),
});
export type ProfileView = z.infer<typeof ProfileView>;

// ---------- chats and workspace ----------

export const ChatId = z.string().min(1).max(256);
export const TaskId = z.string().min(1).max(256);

export const AttachmentView = z.object({
  hostPath: z.string(),
  containerPath: z.string().nullable(),
  /** True for 'readonly' only (a Review-mode copy is writable by the chat). */
  readOnly: z.boolean(),
  mode: AttachMode,
  /** The chat's own copy, for a Review-mode attachment; null otherwise. */
  review: ReviewCopyInfo.nullable(),
  attachedAt: z.number(),
  /**
   * A read-write folder the sandbox cannot write (Berth runs as root, and the folder belongs to
   * root or the chat's read-write folders to different users): why, and what to do. Else null.
   */
  writeWarning: z.string().nullable(),
});
export type AttachmentView = z.infer<typeof AttachmentView>;

export const ChatView = z.object({
  id: z.string(),
  profile: z.string(),
  title: z.string(),
  image: z.string().nullable(),
  createdAt: z.number(),
  /** When the user last wrote in it (its creation until then): the chat list's order. */
  lastActiveAt: z.number(),
  attachments: z.array(AttachmentView),
  /** The first chat of the attempts this chat belongs to ("Try again in a new chat"; shared/attempts.ts); null when it is no attempt. */
  attemptOf: z.string().nullable(),
});
export type ChatView = z.infer<typeof ChatView>;

export const SandboxState = z.enum(['none', 'building', 'pulling', 'creating', 'starting', 'running', 'stopped', 'error', 'local']);
export type SandboxState = z.infer<typeof SandboxState>;

export const SandboxStatus = z.object({
  chatId: z.string(),
  state: SandboxState,
  key: z.string().nullable(),
  containerId: z.string().nullable(),
  containerName: z.string().nullable(),
  image: z.string().nullable(),
  networkName: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** The engine this chat's sandbox runs on (null for the local backend). */
  engine: EngineRef.nullable().optional(),
  /**
   * The engine the chat's profile names now, when its sandbox still runs on another (a running
   * sandbox is never moved: it moves when it stops); null when they are the same.
   */
  profileEngine: EngineRef.nullable().optional(),
  /** What the sandbox's image is, when it is not what the profile promises yet ("Minimal sandbox: …"). */
  environment: z.string().nullable().optional(),
  /**
   * When main read this state, in the order it read it (with sandbox.progress events): a client
   * keeps the newest, so a status answered late (the engine was slow) never hides a newer event.
   */
  revision: z.number().int().nonnegative().optional(),
});
export type SandboxStatus = z.infer<typeof SandboxStatus>;

export const EngineStatus = z.object({
  state: z.enum(['checking', 'ok', 'unreachable']),
  /** The engine's version when it answers. */
  version: z.string().nullable(),
  endpoint: z.string(),
  /** What happened and what to do, when it does not answer. */
  message: z.string().nullable(),
  hint: z.string().nullable(),
  /** Which engine this is, when Berth talks to more than one (per-profile engines). */
  engine: EngineRef.nullable().optional(),
});
export type EngineStatus = z.infer<typeof EngineStatus>;

export const TerminalView = z.object({
  terminalId: z.string(),
  chatId: z.string(),
  title: z.string(),
  state: z.enum(['starting', 'running', 'exited']),
  /** Why it ended, when it has: the shell exited, or the sandbox stopped. */
  exitReason: z.string().nullable(),
  cols: z.number().int(),
  rows: z.number().int(),
});
export type TerminalView = z.infer<typeof TerminalView>;

export const DirectoryListing = z.object({
  path: z.string(),
  parent: z.string().nullable(),
  entries: z.array(z.object({ name: z.string(), path: z.string() })),
  /** Why this folder cannot be attached (attach's own check), or null when it can. */
  refused: z.string().nullable(),
});
export type DirectoryListing = z.infer<typeof DirectoryListing>;

const TerminalId = z.string().min(1).max(128);
const Cols = z.number().int().min(2).max(1000);
const Rows = z.number().int().min(1).max(500);

// ---------- methods ----------

const Empty = z.object({}).strict();

/** Which attach or detach a question is about (workspace.attachPreview). */
export const AttachEffectRequest = z
  .object({
    chatId: ChatId,
    action: z.enum(['attach', 'detach']),
    /** attach: the mode (Review when omitted). */
    mode: AttachMode.optional(),
    /** detach: the attached folder (required); attach: the folder, when already chosen. */
    path: z.string().min(1).max(4096).optional(),
  })
  .strict()
  .refine((r) => r.action === 'attach' || r.path !== undefined, { message: 'A detach names the folder (path).', path: ['path'] });

/** A terminal with something running in it (terminal.busy, workspace.attachPreview). */
export const BusyTerminal = z.object({ terminalId: z.string(), title: z.string(), processes: z.array(z.string()) });

/** workspace.attachPreview's one-use token (crypto.randomUUID). */
export const ConfirmToken = z.string().uuid();

export const methods = {
  'profiles.list': { request: Empty, response: z.object({ profiles: z.array(ProfileView) }) },
  'profiles.create': {
    request: ProfileSettings.partial().extend({ name: ProfileName }).strict(),
    response: ProfileView,
  },
  'profiles.update': {
    request: z.object({ name: ProfileName, settings: ProfileSettingsPatch }).strict(),
    response: ProfileView,
  },
  'profiles.delete': { request: z.object({ name: ProfileName }).strict(), response: z.object({ removedChats: z.number() }) },
  'chats.create': {
    request: z
      .object({
        profile: ProfileName.default(DEFAULT_PROFILE),
        title: z.string().max(200).optional(),
        /** An image for this chat alone; it gets its own container even in shared scope. */
        image: z.string().trim().min(1).max(512).optional(),
      })
      .strict(),
    response: ChatView,
  },
  'chats.rename': {
    request: z.object({ chatId: ChatId, title: z.string().trim().min(1, 'A chat needs a title.').max(200) }).strict(),
    response: ChatView,
  },
  'chats.list': { request: z.object({ profile: ProfileName.optional() }).strict(), response: z.object({ chats: z.array(ChatView) }) },
  'chats.delete': { request: z.object({ chatId: ChatId }).strict(), response: z.object({ removed: z.boolean() }) },
  'tasks.register': {
    request: z
      .object({
        chatId: ChatId,
        taskId: TaskId,
        /** The task this one is an alias of (a subagent's parent); it shares that container. */
        parentId: TaskId.optional(),
        image: z.string().trim().min(1).max(512).optional(),
        cwd: z.string().optional(),
      })
      .strict(),
    response: z.object({ key: z.string().nullable() }),
  },
  'workspace.attach': {
    request: z
      .object({
        chatId: ChatId,
        path: z.string().min(1).max(4096),
        /** Review (the default), read-write or read-only. */
        mode: AttachMode.optional(),
        /** Older clients: true means mode 'readonly', false 'readwrite'. `mode` wins when both are given. */
        readOnly: z.boolean().optional(),
        /** What a Review-mode copy holds besides tracked files and uncommitted changes. */
        contents: CopyContents.optional(),
        /** workspace.attachPreview's token: the user agreed to what it said (good once, for this client and change). */
        confirm: ConfirmToken.optional(),
      })
      .strict()
      // The older `readOnly` is translated here, once: inside main an attachment has a `mode` only.
      .transform(({ readOnly, ...r }) => ({ ...r, mode: attachModeOf(r.mode, readOnly) })),
    response: z.object({ attachment: AttachmentView, attachments: z.array(AttachmentView), notice: z.string().nullable() }),
  },
  'workspace.detach': {
    request: z.object({ chatId: ChatId, path: z.string().min(1).max(4096), confirm: ConfirmToken.optional() }).strict(),
    response: z.object({ attachments: z.array(AttachmentView), notice: z.string().nullable() }),
  },
  'sandbox.exec': {
    request: z
      .object({
        chatId: ChatId,
        /** A subagent registered with tasks.register; defaults to the chat itself. */
        taskId: TaskId.optional(),
        command: z.string().min(1).max(1024 * 1024),
        workdir: z.string().min(1).max(4096).optional(),
        timeoutMs: z.number().int().min(100).max(24 * 60 * 60 * 1000).optional(),
      })
      .strict(),
    response: ExecResult,
  },
  'sandbox.interrupt': {
    request: z.object({ chatId: ChatId, taskId: TaskId.optional() }).strict(),
    response: z.object({ interrupted: z.boolean() }),
  },
  'sandbox.status': { request: z.object({ chatId: ChatId }).strict(), response: SandboxStatus },
  'sandbox.stop': { request: z.object({ chatId: ChatId }).strict(), response: SandboxStatus },
  /**
   * Streams the sandbox's use to this client as `sandbox.stats` events (about once a second)
   * until `sandbox.unwatchStats` or the client goes; `watching` is false when no container runs.
   */
  'sandbox.watchStats': { request: z.object({ chatId: ChatId }).strict(), response: z.object({ watching: z.boolean() }) },
  'sandbox.unwatchStats': { request: z.object({ chatId: ChatId }).strict(), response: z.object({}) },
  /** The size of the chat's home folder and of its container's writable layer. */
  'sandbox.usage': { request: z.object({ chatId: ChatId }).strict(), response: SandboxUsage },
  /** The engine of a profile (by default the default profile's); each engine has its own health. */
  'engine.status': { request: z.object({ profile: ProfileName.optional() }).strict(), response: EngineStatus },
  /** Every engine Berth talks to (each profile's), each with its own health: the status bar's list. */
  'engine.list': { request: Empty, response: z.object({ engines: z.array(EngineStatus) }) },
  /**
   * Pings the engine a setting names (the profile form's "Check connection"). `profile` is the
   * profile the form edits: the key files the setting names are read only when they are the ones
   * saved with it (else the answer says to save first). An engine that does not answer gets one
   * sentence whatever the reason (main's log has the engine client's words), and main answers
   * at most a few checks a minute: a page may not use it to scan ports or files.
   */
  'engine.check': { request: z.object({ engine: EngineSetting, profile: ProfileName.optional() }).strict(), response: EngineStatus },
  /** The Docker contexts in the user's Docker config, as `docker context ls` lists them. */
  'engine.contexts': { request: Empty, response: z.object({ contexts: z.array(DockerContextView) }) },
  /**
   * The images a profile's Image field offers: the engine's local images, and Berth's own base
   * image (`baseImage`, built on first use when the engine lacks it).
   */
  /** Images Berth prepares in the background, for the status bar (also the `images.status` event). */
  'images.status': { request: Empty, response: ImagePreparations },
  'engine.images': { request: Empty, response: z.object({ images: z.array(z.string()), baseImage: z.string() }) },
  /** What the engine's machine has (docker info: NCPU, MemTotal): the most a profile's limits can ask for. */
  'engine.resources': { request: z.object({ profile: ProfileName.optional() }).strict(), response: z.object({ cpus: z.number(), memoryBytes: z.number() }) },
  /**
   * What attaching (in a mode; the folder too when known) or detaching a folder would do, decided
   * by main for every transport: whether the chat's running container is replaced (`recreates`,
   * stopping what runs in its terminals) or left running (a Review-mode copy seen through the slot
   * of the warm sandbox the chat took) and why, what runs in the chat's terminals now, whether the
   * user is asked first (`needsConfirmation`: it stops what runs) with one sentence to ask with,
   * and a one-use token that workspace.attach or workspace.detach takes as the user's yes (without
   * it, a change that needs the yes is refused). Without `path`, an attach is judged for a folder
   * that fits (a plain folder, or a repository whose history a slot copies).
   */
  'workspace.attachPreview': {
    request: AttachEffectRequest,
    response: z.object({
      /** True: the container that runs now is replaced (what runs in it stops). */
      recreates: z.boolean(),
      /** Why, when it does. */
      reason: z.string().nullable(),
      running: z.array(BusyTerminal),
      needsConfirmation: z.boolean(),
      summary: z.string().nullable(),
      /** Given when the change replaces the running container: pass it as `confirm`. */
      token: ConfirmToken.nullable(),
    }),
  },
  /** Folders under a host path, for the browser host's folder picker (never files). */
  'workspace.browse': {
    request: z.object({ path: z.string().max(4096).optional() }).strict(),
    response: DirectoryListing,
  },
  /** An interactive shell (with a TTY) in the chat's own container. */
  'terminal.open': {
    request: z
      .object({
        chatId: ChatId,
        cols: Cols.default(80),
        rows: Rows.default(24),
        /** Restart: the chat's terminal this one takes the place of; the new one gets its name. */
        replaces: TerminalId.optional(),
      })
      .strict(),
    response: TerminalView,
  },
  'terminal.list': { request: z.object({ chatId: ChatId }).strict(), response: z.object({ terminals: z.array(TerminalView) }) },
  /** What runs in the chat's terminals (their shells left out): what recreating its sandbox would stop. */
  'terminal.busy': {
    request: z.object({ chatId: ChatId }).strict(),
    response: z.object({ terminals: z.array(BusyTerminal) }),
  },
  'terminal.input': { request: z.object({ terminalId: TerminalId, data: z.string().max(1024 * 1024) }).strict(), response: z.object({}) },
  'terminal.resize': { request: z.object({ terminalId: TerminalId, cols: Cols, rows: Rows }).strict(), response: z.object({}) },
  /** The terminal's recent output, to repaint it after switching back to its chat. */
  'terminal.replay': { request: z.object({ terminalId: TerminalId }).strict(), response: z.object({ data: z.string() }) },
  /** Flow control: the client has written this many more characters to the screen. */
  'terminal.ack': { request: z.object({ terminalId: TerminalId, chars: z.number().int().min(0) }).strict(), response: z.object({}) },
  'terminal.close': { request: z.object({ terminalId: TerminalId }).strict(), response: z.object({}) },
  ...agentMethods,
  ...reviewMethods,
  ...reviewCommentMethods,
  ...forkMethods,
  ...egressMethods,
  ...environmentMethods,
  ...portsMethods,
} as const;

export type MethodName = keyof typeof methods;
export type Request<M extends MethodName> = z.input<(typeof methods)[M]['request']>;
export type ParsedRequest<M extends MethodName> = z.output<(typeof methods)[M]['request']>;
export type Response<M extends MethodName> = z.output<(typeof methods)[M]['response']>;

// ---------- events ----------

export const SandboxProgressEvent = z.object({
  chatId: z.string(),
  key: z.string(),
  phase: z.enum(['building', 'pulling', 'creating', 'starting', 'ready']),
  message: z.string(),
  /** 0..1 where the engine reports it (image pulls, build steps). */
  fraction: z.number().min(0).max(1).nullable(),
  /** When it happened, in the order of SandboxStatus.revision. */
  revision: z.number().int().nonnegative().optional(),
});
export type SandboxProgressEvent = z.infer<typeof SandboxProgressEvent>;

export const events = {
  'sandbox.progress': SandboxProgressEvent,
  'sandbox.status': SandboxStatus,
  'engine.status': EngineStatus,
  'images.status': ImagePreparations,
  /** A reading of a watched sandbox's use (sandbox.watchStats). */
  'sandbox.stats': z.object({ chatId: z.string(), sample: SandboxStatsSample }),
  /** A running sandbox came near its memory or process limit, or went back below (every running sandbox, checked now and then). */
  'sandbox.pressure': z.object({ chatId: z.string(), memory: z.boolean(), pids: z.boolean() }),
  /** Output of a terminal, in order; the client acks what it has written (terminal.ack). */
  'terminal.data': z.object({ terminalId: z.string(), data: z.string() }),
  'terminal.exit': z.object({ terminalId: z.string(), chatId: z.string(), reason: z.string() }),
  /** Chats or profiles changed (created, renamed, deleted, attached): refetch the lists. */
  'chats.changed': z.object({ chatId: z.string().nullable() }),
  ...agentEvents,
  ...reviewEvents,
  ...egressEvents,
  ...environmentEvents,
} as const;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.infer<(typeof events)[E]>;

export function isMethodName(value: string): value is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, value);
}

/** What the sandbox manager is asked for, what it answers with, and what it is built with. */
import type { BerthError } from '../../../shared/errors.js';
import type { ProfileSettings, SandboxProgressEvent } from '../../../shared/contract.js';
import type { PullProgress } from '../engine/dockerEngine.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import type { SubnetPool } from '../policy/subnets.js';
import type { HostFacts } from '../policy/sensitivePaths.js';
import type { Owner } from '../workspace/homeSeeder.js';
import type { Clock } from '../base/clock.js';
import type { Disposable } from '../events.js';
import type { BaseImage } from './baseImage.js';
import type { EngineHandle } from './engineRegistry.js';
import type { ShellSession } from './shellSession.js';

export interface SandboxRequest {
  key: string;
  profile: { name: string; settings: ProfileSettings };
  /** The chat that owns the container, or '' for the profile's shared container. */
  chatId: string;
  image: string;
  mounts: readonly PlannedMount[];
  workingDir: string;
  /** A project environment's variables (environment/), NAME=value. */
  env?: readonly string[];
  /** A project environment's postStartCommand as one sh script: run at each start of the container (sandbox/startCommand). */
  postStart?: { script: string; source: string };
  onProgress(phase: SandboxProgressEvent['phase'], message: string, fraction: number | null): void;
}

export interface Ready {
  session: ShellSession;
  containerId: string;
  /** The uid:gid the container runs as; terminals run as the same user. */
  user: string;
  notices: string[];
  /** True when this use started the container (created or started it), not the warm path. */
  broughtUp: boolean;
  /**
   * True when this use waited for a bring-up someone else began (the warm pool's, say): the
   * sandbox's state changed meanwhile, and that someone may have nobody to tell.
   */
  joined: boolean;
}

/**
 * A ready shell, leased: dispose() ends this use exactly once (a second dispose does nothing),
 * and the container may idle-stop once every lease on it is disposed.
 */
export interface SandboxLease extends Ready, Disposable {}

export interface SandboxState {
  state: 'none' | 'building' | 'pulling' | 'creating' | 'starting' | 'running' | 'stopped' | 'error';
  containerId: string | null;
  containerName: string;
  error: BerthError | null;
}

/** The manager's state for one container key (one per key however many callers race). */
export interface KeyState {
  key: string;
  name: string;
  containerId: string | null;
  session: ShellSession | null;
  /** An exclusive operation in progress (bring-up or stop); everyone else waits for it. */
  lock: Promise<unknown> | null;
  lockKind: 'bringUp' | 'stop' | null;
  /** Commands holding the session (leases from acquire()); a recreate waits for them. */
  inUse: number;
  drainWaiters: (() => void)[];
  phase: SandboxState['state'] | null;
  error: BerthError | null;
  /** Set when Berth itself stopped the container, so a restart is not news to the user. */
  stoppedByUs: boolean;
  /** Every use in progress or leased (bring-ups, commands, terminals): no idle stop while > 0. */
  busy: number;
  idleTimer: unknown;
  settings: ProfileSettings | null;
  user: string;
  /** The engine the slot's container lives on: pinned, so a profile's new engine never moves it silently. */
  engine: EngineHandle | null;
  /** The image its container was made from, the one its request named, and what its header says about it. */
  image: string | null;
  requested: string | null;
  note: string | null;
}

/** The engines profiles name (sandbox/engineRegistry). */
export interface EngineRouter {
  forProfile(settings: ProfileSettings): EngineHandle;
  all(): EngineHandle[];
  /** The engine on this computer (Berth's default): images for a remote engine are carried from it. */
  local(): EngineHandle;
}

export interface SandboxContainersDeps {
  engines: EngineRouter;
  instanceId: string;
  dataDir: string;
  hostFacts: () => readonly HostFacts[];
  /** The uid:gid to run as, for these settings and mounts (policy/writableFolders: never root). */
  sandboxUser: (settings: ProfileSettings, mounts: readonly PlannedMount[]) => string;
  /** Who owns the home on the host: the sandbox's uid:gid when Berth runs as root, else null (the user). */
  homeOwner: (settings: ProfileSettings, user: string) => Owner | null;
  clock: Clock;
  /** Berth's own base image, built here when a chat needs it and the engine lacks it. */
  baseImage: BaseImage;
  /** Seals allowlist sandboxes behind their profile's proxy (egress/egressService.ts). */
  egress?: SandboxEgress;
  /**
   * Berth's address range (policy/subnets.ts): an open profile's bridge takes a /22 of it, not
   * one of Docker's default pools; an error (a bad BERTH_EGRESS_POOL) fails the start with it.
   * Absent: Docker picks.
   */
  subnetPool?: SubnetPool | BerthError;
  /**
   * The image a sandbox is made from instead of the one its profile names (Berth's default
   * environment, a setup command's prepared image: sandbox/imagePreparations.ts). `running`: the image
   * of the key's container while it is up, which is kept. Absent: the named image.
   */
  chooseImage?: (req: SandboxRequest, running: string | null) => { image: string; note: string | null };
  /** What a sandbox made from `image` (for `requested`) says now; `noted`: what it said when made. */
  imageNote?: (requested: string, image: string, noted: string | null) => string | null;
}

export interface SandboxEgress {
  /** The sandbox's own sealed network with the profile's proxy on it (the proxy image may be built first: progress). */
  prepareSandbox(profile: string, key: string, onProgress: (p: PullProgress) => void): Promise<string>;
  registerSandbox(profile: string, key: string, chatId: string, containerId: string): Promise<void>;
  releaseSandbox(key: string): Promise<void>;
  /** Whether the sandbox started before its proxy was up (no network yet). */
  proxyPending?(key: string): boolean;
}


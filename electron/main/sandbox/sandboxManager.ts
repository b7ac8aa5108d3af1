/**
 * Container lifecycle per key: one container per key however many callers race, created on
 * first use, kept between turns, stopped when idle and at quit, recreated when its mounts
 * or settings changed or when it vanished.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProfileSettings, SandboxProgressEvent } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { ContainerDetails, Engine, PullProgress } from '../engine/dockerEngine.js';
import { APP_LABEL_VALUE, LABEL, SANDBOX_HOME, appArmorProfileFor, buildContainerSpec, type ContainerCreateBody } from '../policy/containerSpec.js';
import type { EngineHandle } from './engineRegistry.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import { judgeMountProof, mountProofCommand, type ExpectedMount } from '../policy/mountProof.js';
import { containerNameFor, folderNameFor, networkNameFor } from '../policy/names.js';
import { allowlistEngineProblem, proxyEnv, sandboxNetworkName } from '../policy/egress.js';
import { podmanChatNetwork, podmanNoAllowlist } from '../engine/podmanNetworks.js';
import { openNetworkPool, type SubnetPool } from '../policy/subnets.js';
import { killTreeScript } from '../policy/shellProtocol.js';
import { fillRemote, prepareRemoteVolumes } from './remoteFill.js';
import { RemoteCopySync, carryImage, refuseDirectOnRemote } from './remoteSandbox.js';
import { copyVolumeFor, specForRemoteEngine } from '../policy/remoteSpec.js';
import type { HostFacts } from '../policy/sensitivePaths.js';
import { FolderRefused, recheckAttachedFolder, resolveAttachableFolder } from '../workspace/folderValidation.js';
import { recheckReviewCopy } from '../review/reviewMounts.js';
import { recheckSlotFolder } from '../review/slotFolders.js';
import { prepareHome, type Owner } from '../workspace/homeSeeder.js';
import type { Clock } from '../base/clock.js';
import { toDisposable } from '../base/lifecycle.js';
import type { Disposable } from '../events.js';
import type { BaseImage } from './baseImage.js';
import { ShellSession } from './shellSession.js';

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

export interface SlotStatus {
  state: 'none' | 'building' | 'pulling' | 'creating' | 'starting' | 'running' | 'stopped' | 'error';
  containerId: string | null;
  containerName: string;
  error: BerthError | null;
}

interface Slot {
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
  phase: SlotStatus['state'] | null;
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

export interface SandboxManagerDeps {
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

const STOP_GRACE_SECONDS = 3;

/** A chat of an allowlist profile that started before its proxy: what its header says. */
export const PROXY_PENDING_NOTE = 'No network yet: the egress proxy is being prepared (see the status bar). This chat gains its allowlist when it is ready, without a restart.';

export type GoneListener = (key: string, reason: string) => void;

export class SandboxManager {
  private readonly slots = new Map<string, Slot>();
  private readonly goneListeners = new Set<GoneListener>();

  constructor(private readonly deps: SandboxManagerDeps) {
    this.remoteCopies = new RemoteCopySync(deps.dataDir);
  }

  /** Hears, just before it happens, that a key's container stops or goes away, and why. */
  onGone(listener: GoneListener): () => void {
    this.goneListeners.add(listener);
    return () => this.goneListeners.delete(listener);
  }

  private gone(key: string, reason: string): void {
    for (const l of this.goneListeners) l(key, reason);
  }

  homeFor(profile: string, key: string): string {
    return path.join(this.deps.dataDir, 'profiles', folderNameFor(profile), 'homes', folderNameFor(key));
  }

  private slot(key: string): Slot {
    let s = this.slots.get(key);
    if (!s) {
      s = {
        key, name: containerNameFor(this.deps.instanceId, key), containerId: null, session: null, lock: null, lockKind: null,
        inUse: 0, drainWaiters: [], phase: null, error: null, stoppedByUs: false, busy: 0, idleTimer: null, settings: null, user: '', engine: null,
        image: null, requested: null, note: null,
      };
      this.slots.set(key, s);
    }
    return s;
  }

  /**
   * A ready shell for the key's container, leased for one command: dispose the lease when the
   * command ends. Concurrent callers share one bring-up and its failure; a container that must
   * be recreated waits until no command is running in it.
   */
  acquire(req: SandboxRequest): Promise<SandboxLease> {
    return this.use(req, 'command');
  }

  /**
   * Like acquire(), for a long-lived user such as a terminal: its lease keeps the container
   * from idling until disposed, but never delays a recreate (its terminal just ends then).
   */
  hold(req: SandboxRequest): Promise<SandboxLease> {
    return this.use(req, 'hold');
  }

  private async use(req: SandboxRequest, kind: 'command' | 'hold'): Promise<SandboxLease> {
    const s = this.slot(req.key);
    s.busy++;
    this.clearIdle(s);
    try {
      // Before the loop: nothing may await between its lock check and the bring-up taking the lock.
      const handle = this.handleFor(s, req);
      if (!this.appArmor.has(handle.ref.id) || !this.podman.has(handle.engine)) await this.learnEngine(handle);
      let joined = false;
      for (;;) {
        if (s.lock) {
          const kind = s.lockKind;
          const failure = await s.lock.then(() => null, (error: unknown) => error);
          if (failure && kind === 'bringUp') throw failure;
          if (kind === 'bringUp') joined = true;
          continue;
        }
        const healthy = s.session !== null && !s.session.closed && s.containerId !== null;
        const chosen = this.deps.chooseImage?.(req, healthy && s.requested === req.image ? s.image : null) ?? { image: req.image, note: null };
        const made = { ...req, image: chosen.image };
        const spec = this.specFor(made, s);
        if (healthy && spec.Labels[LABEL.spec] === this.currentSpec(s)) {
          return this.lease(s, kind, { session: s.session as ShellSession, containerId: s.containerId as string, user: s.user, notices: this.stayNotice(s, req), broughtUp: false, joined });
        }
        if (healthy && s.inUse > 0) {
          await new Promise<void>((resolve) => s.drainWaiters.push(resolve));
          continue;
        }
        const ready = await this.exclusive(s, 'bringUp', () => this.bringUp(s, made, spec));
        s.image = made.image;
        s.requested = req.image;
        s.note = chosen.note;
        return this.lease(s, kind, ready);
      }
    } catch (error) {
      s.busy--;
      this.scheduleIdle(s);
      throw error;
    }
  }

  /** The engine a key's container is on: the one it was created on, else its profile's. */
  engineOf(key: string, settings?: ProfileSettings): Engine {
    const pinned = this.slots.get(key)?.engine;
    if (pinned) return pinned.engine;
    if (settings) return this.deps.engines.forProfile(settings).engine;
    throw new BerthError('internal', `No engine is known for the sandbox ${key}.`);
  }

  /** Which engine a key's container is on (or would be created on), for the sandbox details. */
  engineRef(key: string, settings: ProfileSettings): EngineHandle['ref'] {
    return (this.slots.get(key)?.engine ?? this.deps.engines.forProfile(settings)).ref;
  }

  /** The engine the profile names now, when the key's container is pinned to another (null when the same). */
  profileEngineRef(key: string, settings: ProfileSettings): EngineHandle['ref'] | null {
    const pinned = this.slots.get(key)?.engine;
    const want = this.deps.engines.forProfile(settings);
    return pinned && pinned.ref.id !== want.ref.id ? want.ref : null;
  }

  /** A running sandbox stays on its engine after its profile's engine changed, and says so. */
  private stayNotice(s: Slot, req: SandboxRequest): string[] {
    const want = this.deps.engines.forProfile(req.profile.settings);
    if (!s.engine || s.engine.ref.id === want.ref.id) return [];
    return [
      `This chat's sandbox keeps running on ${s.engine.ref.label}, although its profile now uses ${want.ref.label}. It moves when its sandbox stops (Stop in the sandbox details, or when idle); the home folder and installed packages do not move with it.`,
    ];
  }

  /** The engine answers again: errors that only said it did not are no longer true. */
  forgetEngineErrors(): void {
    for (const s of this.slots.values()) {
      if (s.phase === 'error' && s.error?.code === 'engine_unreachable') {
        s.phase = null;
        s.error = null;
      }
    }
  }

  /** The profile's settings changed (a new image, say): the last failure may no longer hold. */
  forgetError(key: string): boolean {
    const s = this.slots.get(key);
    if (!s || s.phase !== 'error' || s.lock) return false;
    s.phase = null;
    s.error = null;
    return true;
  }

  /**
   * The use that use() began (its `busy` count) becomes a lease; a command's also counts in
   * `inUse`. Disposing it ends both, once: a recreate waiting for commands to drain may go, and
   * the idle clock starts when nobody is left. A lease outliving its slot (the chat's container
   * was removed) touches only that old slot, never a new one for the same key.
   */
  private lease(s: Slot, kind: 'command' | 'hold', ready: Ready): SandboxLease {
    if (kind === 'command') s.inUse++;
    const release = toDisposable(() => {
      s.busy--;
      if (kind === 'command' && --s.inUse === 0) for (const wake of s.drainWaiters.splice(0)) wake();
      if (this.slots.get(s.key) === s) this.scheduleIdle(s);
    });
    return { ...ready, dispose: () => release.dispose() };
  }

  /** Leases in progress on a key (bring-ups included): 0 once every command and terminal let go. */
  leases(key: string): number {
    return this.slots.get(key)?.busy ?? 0;
  }

  /** Runs fn as the slot's only bring-up or stop. */
  private async exclusive<T>(s: Slot, kind: 'bringUp' | 'stop', fn: () => Promise<T>): Promise<T> {
    while (s.lock) await s.lock.catch(() => undefined);
    const op = fn();
    s.lock = op;
    s.lockKind = kind;
    try {
      return await op;
    } finally {
      if (s.lock === op) {
        s.lock = null;
        s.lockKind = null;
      }
    }
  }

  private specLabels = new Map<string, string>();
  private currentSpec(s: Slot): string | undefined {
    return this.specLabels.get(s.key);
  }

  /** The AppArmor profile to pin, once the engine has told (undefined until then). */
  private readonly appArmor = new Map<string, string | null>();

  /** The engine a slot's container is on while it has one (pinned), else its profile's. */
  private handleFor(s: Slot, req: SandboxRequest): EngineHandle {
    return s.engine ?? this.deps.engines.forProfile(req.profile.settings);
  }

  /** Whether each engine is Podman, once it has told (absent until then). */
  private readonly podman = new WeakMap<Engine, boolean>();

  /** Asks the engine once; an engine that does not answer is asked again on the next acquire. */
  private async learnEngine(handle: EngineHandle): Promise<void> {
    const [options, kind] = await Promise.all([handle.engine.securityOptions().catch(() => null), handle.engine.kind().catch(() => null)]);
    if (options !== null) this.appArmor.set(handle.ref.id, appArmorProfileFor(options));
    if (kind !== null) this.podman.set(handle.engine, kind.name === 'podman');
  }

  /**
   * The network an 'open' sandbox joins: the profile's, with inter-container traffic off, on
   * Docker; on Podman, which cannot turn that off, the chat's own isolated one (podmanNetworks.ts).
   */
  private openNetwork(engine: Engine, profile: string, key: string): { name: string; labels: Record<string, string> } {
    if (this.podman.get(engine)) return podmanChatNetwork(this.deps.instanceId, profile, key);
    return { name: networkNameFor(profile), labels: { [LABEL.app]: APP_LABEL_VALUE, [LABEL.profile]: profile } };
  }

  private specFor(req: SandboxRequest, s: Slot): ContainerCreateBody {
    const user = this.deps.sandboxUser(req.profile.settings, req.mounts);
    const egress = req.profile.settings.egress;
    const network = egress === 'none'
      ? { mode: 'none' as const }
      : egress === 'allowlist'
        ? { mode: 'allowlist' as const, name: sandboxNetworkName(this.deps.instanceId, req.key), env: proxyEnv() }
        : { mode: 'isolated' as const, name: this.openNetwork(this.handleFor(s, req).engine, req.profile.name, req.key).name };
    return buildContainerSpec({
      name: s.name,
      image: req.image,
      user,
      instanceId: this.deps.instanceId,
      profile: req.profile.name,
      chatId: req.chatId,
      key: req.key,
      homeSource: this.homeFor(req.profile.name, req.key),
      mounts: req.mounts,
      limits: req.profile.settings.limits,
      network,
      workingDir: req.workingDir,
      appArmorProfile: this.appArmor.get(this.handleFor(s, req).ref.id) ?? null,
      ...(req.env?.length ? { env: req.env } : {}),
    });
  }

  /** Checks every mount source again; returns what each must be once mounted. */
  private recheckMounts(req: SandboxRequest): ExpectedMount[] {
    if (req.mounts.length === 0) return [];
    const facts = this.deps.hostFacts();
    // A Review-mode copy and a warm sandbox's slot folder are Berth's own folders; they are proven after the start like any other.
    const identity = (m: PlannedMount) =>
      m.origin === 'review'
        ? recheckReviewCopy(m.source, this.deps.dataDir)
        : m.origin === 'slot'
          ? recheckSlotFolder(m.source, this.deps.dataDir)
          : recheckAttachedFolder(m.source, facts);
    return req.mounts.map((m) => ({ source: m.source, target: m.target, ...identity(m) }));
  }

  /**
   * After a start and before anything runs in the container: each bind must be the folder
   * that was checked (policy/mountProof.ts). Otherwise the container goes, with its mounts.
   */
  private async proveMounts(s: Slot, req: SandboxRequest, id: string, user: string, expected: readonly ExpectedMount[]): Promise<void> {
    // On a remote engine nothing local is bound (volumes filled by copy): there is nothing to prove.
    if (expected.length === 0 || s.engine?.ref.remote) return;
    const engine = this.engineOf(s.key);
    const home = this.homeFor(req.profile.name, req.key);
    const homeStat = fs.statSync(home, { bigint: true });
    const control: ExpectedMount = { source: home, target: SANDBOX_HOME, dev: String(homeStat.dev), ino: String(homeStat.ino) };
    const all = [control, ...expected];
    const answer = await engine.execOnce(id, mountProofCommand(all), user);
    const verdict = judgeMountProof(control, expected, answer.exitCode, answer.output);
    if (verdict.ok) return;
    this.gone(
      req.key,
      verdict.kind === 'swapped'
        ? 'The sandbox was removed: a folder attached to it changed while it started.'
        : 'The sandbox was removed: Berth could not prove its folders are the ones attached.',
    );
    await engine.removeContainer(id);
    s.containerId = null;
    if (verdict.kind === 'swapped') {
      throw new BerthError(
        'workspace_changed',
        `The folder "${verdict.mount.source}" was swapped for another while the sandbox started (Docker mounted something else at ${verdict.mount.target}), so Berth removed the sandbox before anything ran in it.`,
        { hint: 'Something on this computer is renaming or replacing that folder. Make sure nothing else changes it (or attach it read-only in other chats), then run the command again.' },
      );
    }
    throw new BerthError(
      'container_failed',
      `Berth could not prove that the sandbox's folders are the ones attached (the image ${req.image} answered: ${verdict.detail}), so it removed the sandbox before anything ran in it.`,
      { hint: 'Berth needs the stat command in the image (coreutils or busybox, as most images have). Pick such an image in the profile settings or for this chat.' },
    );
  }

  private async bringUp(s: Slot, req: SandboxRequest, spec: ContainerCreateBody): Promise<Ready> {
    const want = this.deps.engines.forProfile(req.profile.settings);
    const notices: string[] = [];
    if (s.engine && s.engine.ref.id !== want.ref.id) {
      // The profile's engine changed while this sandbox was stopped: it moves now, and says so.
      const old = s.engine;
      const ids = s.containerId
        ? [s.containerId]
        : (await old.engine.findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: s.key }).catch(() => [])).map((c) => c.id);
      for (const id of ids) await old.engine.removeContainer(id).catch(() => undefined);
      s.containerId = null;
      s.session?.close();
      s.session = null;
      this.specLabels.delete(s.key);
      notices.push(
        `This chat's sandbox moved from ${old.ref.label} to ${want.ref.label}, the engine its profile now uses. Attached folders are kept; the old sandbox's home and installed packages stay behind${ids.length ? ' and its container was removed' : ''}.`,
      );
    }
    if (want.ref.remote) refuseDirectOnRemote(req.mounts, want.ref.label);
    s.engine = want;
    const { engine } = want;
    const hadSession = s.session !== null;
    const knownId = s.containerId;
    // A shell abandoned after a timeout may still hold the container's stdin: restart it.
    const shellStuck = s.session?.failure?.code === 'shell_failed';
    s.phase = 'creating';
    s.session?.close();
    s.session = null;
    s.error = null;
    try {
      // Independent look-ups go out together: this is on the path of a chat's first command.
      const network = req.profile.settings.egress === 'none' ? null : req.profile.settings.egress;
      const [found, imagePresent] = await Promise.all([
        this.findExisting(knownId, req.key),
        engine.hasImage(req.image),
        this.ensureNetwork(req),
      ]);
      let existing = found;
      if (knownId && !existing) {
        notices.push(
          'The sandbox container had disappeared (removed by hand, or Docker was reset), so Berth created a new one. Your attached folders and the sandbox home are kept; anything else in the old container is gone.',
        );
      } else if (existing && !existing.running && hadSession && !s.stoppedByUs) {
        notices.push('The sandbox had stopped (Docker restarted or the container was stopped), so Berth started it again. Files are kept; running processes were ended.');
      }
      if (existing && existing.labels[LABEL.spec] !== spec.Labels[LABEL.spec]) {
        this.gone(req.key, 'The sandbox was recreated to apply changed folders or settings.');
        await engine.removeContainer(existing.id);
        existing = null;
        notices.push(
          'The sandbox was recreated to apply changed folders or settings (Docker cannot change the mounts of an existing container). Your attached folders and the sandbox home are kept; other container state, such as installed packages and running processes, was reset.',
        );
      }

      let expected = this.recheckMounts(req);
      if (existing?.running && shellStuck) {
        await engine.stopContainer(existing.id, STOP_GRACE_SECONDS);
        existing = { ...existing, running: false };
        notices.push("The sandbox's shell stopped answering, so Berth restarted the sandbox. Files are kept; running processes were ended.");
      }
      let id = existing ? existing.id : await this.create(s, req, spec, imagePresent, notices);
      s.containerId = id;
      let session: ShellSession;
      try {
        session = await this.openShell(s, req, id, spec.User, existing?.running ?? false, expected);
      } catch (error) {
        // A stopped container remembers its network by id: once that network was removed
        // (docker network prune), it can never start again. Recreate it on the new network.
        if (!(existing && error instanceof BerthError && error.code === 'network_failed' && network)) throw error;
        await engine.removeContainer(id);
        await this.ensureNetwork(req);
        id = await this.create(s, req, spec, true, notices);
        s.containerId = id;
        expected = this.recheckMounts(req);
        session = await this.openShell(s, req, id, spec.User, false, expected);
        notices.push("The sandbox's network had been removed, so Berth recreated the network and the sandbox. Files in the home and attached folders are kept; other container state was reset.");
      }
      if (req.profile.settings.egress === 'allowlist') await this.deps.egress?.registerSandbox(req.profile.name, req.key, req.chatId, id);
      s.session = session;
      s.settings = req.profile.settings;
      s.user = spec.User;
      s.stoppedByUs = false;
      s.phase = 'running';
      this.specLabels.set(s.key, spec.Labels[LABEL.spec] as string);
      req.onProgress('ready', 'Sandbox ready', null);
      return { session, containerId: id, user: spec.User, notices, broughtUp: true, joined: false };
    } catch (error) {
      s.phase = 'error';
      s.error = error instanceof BerthError ? error : new BerthError('internal', 'The sandbox could not be started.', { cause: error });
      throw s.error;
    }
  }

  /** The keys this manager holds a slot for (brought up, or being brought up). */
  keys(): string[] {
    return [...this.slots.keys()];
  }

  /** The Docker network a key's container joins, or null for none. */
  networkName(profile: { name: string; settings: ProfileSettings }, key: string): string | null {
    const { egress } = profile.settings;
    return egress === 'open' ? this.openNetwork(this.engineOf(key, profile.settings), profile.name, key).name : egress === 'allowlist' ? sandboxNetworkName(this.deps.instanceId, key) : null;
  }

  /**
   * The network the sandbox joins: the profile's bridge ('open'), or its own sealed one
   * ('allowlist'). Public for a project environment's build, whose steps join the same network.
   */
  async ensureNetwork(req: Pick<SandboxRequest, 'key' | 'profile' | 'onProgress'>): Promise<void> {
    const { egress } = req.profile.settings;
    if (egress === 'open') {
      const engine = this.engineOf(req.key, req.profile.settings);
      const { name, labels } = this.openNetwork(engine, req.profile.name, req.key);
      const pool = this.deps.subnetPool;
      if (pool instanceof BerthError) throw pool;
      await engine.ensureNetwork(name, labels, pool && openNetworkPool(pool));
    } else if (egress === 'allowlist') {
      // Refused when the profile is saved too; a profile saved before that check still fails closed here.
      const elsewhere = allowlistEngineProblem(egress, this.deps.engines.forProfile(req.profile.settings).ref);
      if (elsewhere) throw new BerthError('network_failed', elsewhere.message, { hint: elsewhere.hint });
      if (!this.deps.egress) throw new BerthError('network_failed', 'This Berth cannot run the egress proxy an allowlist profile needs.', { hint: 'Set the profile\'s egress to "none" or "open".' });
      // Fails closed: Podman's networks cannot be sealed the way the allowlist needs (README, Podman).
      if (this.podman.get(this.engineOf(req.key, req.profile.settings))) throw podmanNoAllowlist();
      await this.deps.egress.prepareSandbox(req.profile.name, req.key, (p) => req.onProgress('building', p.message, p.fraction));
    }
  }

  /** The open network a profile's sandboxes join on its engine (made if missing): its setup command's build network. */
  async profileNetwork(profile: string, settings: ProfileSettings): Promise<string> {
    const engine = this.deps.engines.forProfile(settings).engine;
    const { name, labels } = this.openNetwork(engine, profile, `setup:${profile}`);
    const pool = this.deps.subnetPool;
    if (pool instanceof BerthError) throw pool;
    await engine.ensureNetwork(name, labels, pool && openNetworkPool(pool));
    return name;
  }

  private async findExisting(knownId: string | null, key: string): Promise<ContainerDetails | null> {
    const engine = this.engineOf(key);
    const known = knownId ? await engine.inspectContainer(knownId) : null;
    if (known) return known;
    const found = await engine.findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: key });
    for (const extra of found.slice(1)) await engine.removeContainer(extra.id);
    return found[0] ? engine.inspectContainer(found[0].id) : null;
  }

  /**
   * Starts the container if needed and opens its shell. Attaching runs alongside the start:
   * the shell waits on its open stdin, so no output can be missed.
   */
  private async openShell(s: Slot, req: SandboxRequest, id: string, user: string, running: boolean, checked: readonly ExpectedMount[]): Promise<ShellSession> {
    const engine = this.engineOf(s.key);
    let expected = checked;
    if (!running) {
      s.phase = 'starting';
      req.onProgress('starting', 'Starting the sandbox…', null);
      // Docker resolves bind sources again at every start: check again, then prove what it mounted.
      expected = this.recheckMounts(req);
    }
    const [attached, started] = await Promise.allSettled([engine.attach(id), running ? Promise.resolve() : engine.startContainer(id)]);
    try {
      if (started.status === 'rejected') throw started.reason;
      if (attached.status === 'rejected') throw attached.reason;
      // The shell waits on stdin: nothing runs in the container until the proof passed.
      await this.proveMounts(s, req, id, user, expected);
      return await ShellSession.open(
        attached.value,
        (signal, serial) => engine.execOnce(id, ['/bin/sh', '-c', killTreeScript(signal, serial)], user).then(() => undefined),
        this.deps.clock.now,
      );
    } catch (error) {
      if (attached.status === 'fulfilled') attached.value.close();
      if (started.status === 'fulfilled' && s.containerId === id) {
        const details = await engine.inspectContainer(id).catch(() => null);
        if (details && !details.running) {
          throw new BerthError('container_failed', `The sandbox started but its shell exited at once. The image ${req.image} needs /bin/sh.`, {
            hint: 'Pick an image that has a POSIX shell (most do), in the profile settings or for this chat.',
            cause: error,
          });
        }
      }
      throw error;
    }
  }

  private async create(s: Slot, req: SandboxRequest, spec: ContainerCreateBody, imagePresent: boolean, notices: string[]): Promise<string> {
    const engine = this.engineOf(s.key);
    const { baseImage } = this.deps;
    const remote = s.engine?.ref.remote === true;
    if (!imagePresent && remote) {
      const label = s.engine?.ref.label ?? 'the remote engine';
      const onProgress = (phase: 'building' | 'pulling', message: string, fraction: number | null) => {
        s.phase = phase;
        req.onProgress(phase, message, fraction);
      };
      notices.push(...(await carryImage({ image: req.image, local: this.deps.engines.local().engine, remote: engine, label, baseImage, onProgress })));
    } else if (!imagePresent && req.image === baseImage.tag) {
      s.phase = 'building';
      req.onProgress('building', `Building Berth's base image ${req.image} (first run only)…`, 0);
      notices.push(await baseImage.build((p) => req.onProgress('building', p.message, p.fraction)));
    } else if (!imagePresent) {
      s.phase = 'pulling';
      req.onProgress('pulling', `Downloading the image ${req.image}…`, 0);
      await engine.pullImage(req.image, (p) => req.onProgress('pulling', p.message, p.fraction));
    }
    this.checkTemplate(req.profile.settings.homeTemplate);
    // A remote sandbox's home is a volume there; nothing of this computer's home folder is used.
    if (!remote) prepareHome(this.homeFor(req.profile.name, req.key), req.profile.settings.homeTemplate, this.deps.homeOwner(req.profile.settings, spec.User ?? ''));
    s.phase = 'creating';
    req.onProgress('creating', 'Creating the sandbox…', null);
    this.recheckMounts(req);
    // An engine whose files are not this computer's never gets a local path: volumes, filled by copy.
    const body = remote ? specForRemoteEngine(spec) : spec;
    const createOnce = async () => {
      const fresh = remote ? await prepareRemoteVolumes(engine, body) : new Set<string>();
      const id = await engine.createContainer(body);
      if (remote) await fillRemote(engine, id, body, fresh, req.mounts, this.deps.dataDir, spec.User);
      return id;
    };
    try {
      return await createOnce();
    } catch (error) {
      // Same name: a container for this key that the label search did not see yet.
      if (error instanceof BerthError && error.code === 'already_exists') {
        const found = await engine.findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: req.key });
        if (found[0]) {
          await engine.removeContainer(found[0].id);
          return createOnce();
        }
      }
      throw error;
    }
  }

  /** Whether the key's sandbox is (or would be) on an engine whose files are not this computer's. */
  isRemote(key: string): boolean {
    return this.slots.get(key)?.engine?.ref.remote === true;
  }

  private readonly remoteCopies: RemoteCopySync;

  /** A remote sandbox's Review copies → their copies on this computer (remoteSandbox.ts). */
  syncRemoteCopies(key: string, mounts: readonly PlannedMount[]): Promise<void> {
    const s = this.slots.get(key);
    if (!s?.engine?.ref.remote || !s.containerId) return Promise.resolve();
    // Read when the run starts: a queued run uses the container of its own time.
    const where = () => (s.engine && s.containerId ? { engine: s.engine.engine, containerId: s.containerId } : null);
    return this.remoteCopies.sync(key, where, mounts);
  }

  /**
   * Berth is about to write the Review copies on this computer (undo, discard, refresh): the
   * remote sandbox and its copy volumes go, so its next start copies them there again. The home
   * volume stays.
   */
  async dropRemoteCopies(key: string, mounts: readonly PlannedMount[]): Promise<void> {
    const s = this.slots.get(key);
    const handle = s?.engine;
    if (!s || !handle?.ref.remote) return;
    const ids = s.containerId
      ? [s.containerId]
      : (await handle.engine.findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: key })).map((c) => c.id);
    for (const id of ids) await this.removeContainer(id, key, handle.engine);
    for (const m of mounts) if (m.origin !== 'profile') await handle.engine.removeVolume(copyVolumeFor(s.name, m.target, m.source));
  }

  /** A template is read on the host: the same deny-list as a mount applies (never ~ or ~/.ssh). */
  private checkTemplate(template: string | null): void {
    if (template === null || !fs.existsSync(template)) return;
    try {
      resolveAttachableFolder(template, this.deps.hostFacts(), { template: true });
    } catch (error) {
      const why = error instanceof FolderRefused ? error.reason : error instanceof BerthError ? error.message : 'it cannot be read';
      throw new BerthError('home_template_failed', `The profile's home template "${template}" cannot be used: ${why}`, {
        hint: 'Pick a folder that holds only configuration files, such as a dotfiles folder.',
        cause: error,
      });
    }
  }

  async status(key: string, settings: ProfileSettings): Promise<SlotStatus> {
    const s = this.slots.get(key);
    const engine = this.engineOf(key, settings);
    const name = s?.name ?? containerNameFor(this.deps.instanceId, key);
    if (s && ((s.lock && s.lockKind === 'bringUp') || s.phase === 'error')) {
      return { state: s.phase ?? 'starting', containerId: s.containerId, containerName: name, error: s.error };
    }
    const found = s?.containerId
      ? await engine.inspectContainer(s.containerId)
      : await engine
          .findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: key })
          .then((list) => (list[0] ? engine.inspectContainer(list[0].id) : null));
    if (!found) return { state: 'none', containerId: null, containerName: name, error: null };
    return { state: found.running ? 'running' : 'stopped', containerId: found.id, containerName: found.name, error: null };
  }

  /** What the key's sandbox says about its image (a minimal one while the full one is prepared), or null. */
  imageNote(key: string): string | null {
    const s = this.slots.get(key);
    if (!s?.image || !s.requested) return null;
    const notes = [this.deps.imageNote?.(s.requested, s.image, s.note) ?? s.note];
    if (this.deps.egress?.proxyPending?.(key)) notes.push(PROXY_PENDING_NOTE);
    return notes.filter((n) => n !== null).join(' ') || null;
  }

  /** Stops the command `owner` is running in the key's shell, if any; true when there was one. */
  async interrupt(key: string, owner: string): Promise<boolean> {
    return (await this.slots.get(key)?.session?.interrupt(owner)) ?? false;
  }

  async stop(key: string, settings: ProfileSettings | null, reason = 'The sandbox was stopped.'): Promise<void> {
    const s = this.slot(key);
    const engine = this.engineOf(key, settings ?? s.settings ?? undefined);
    await this.exclusive(s, 'stop', async () => {
      this.gone(key, reason);
      this.clearIdle(s);
      s.session?.close();
      s.session = null;
      s.stoppedByUs = true;
      const ids = s.containerId
        ? [s.containerId]
        : (await engine.findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: key })).map((c) => c.id);
      for (const id of ids) await engine.stopContainer(id, STOP_GRACE_SECONDS);
      s.phase = 'stopped';
    });
  }

  /** Removes every container the chat owns, on every engine Berth uses, and forgets their keys. */
  async removeForChat(chatId: string): Promise<string[]> {
    return this.removeEverywhere({ [LABEL.chat]: chatId });
  }

  /** The engines this run's containers are on (a chat keeps its engine until its sandbox stops); not a start that made none. */
  engineIdsInUse(): Set<string> {
    return new Set([...this.slots.values()].flatMap((s) => (s.engine && s.containerId !== null ? [s.engine.ref.id] : [])));
  }

  async removeForProfile(profile: string): Promise<void> {
    await this.removeEverywhere({ [LABEL.profile]: profile });
  }

  /** Tries every engine; an engine that does not answer fails the call after the others were done. */
  private async removeEverywhere(labels: Record<string, string>): Promise<string[]> {
    const results = await Promise.allSettled(
      this.deps.engines.all().map(async ({ engine }) => {
        const found = await engine.findContainers({ [LABEL.instance]: this.deps.instanceId, ...labels });
        await Promise.all(found.map((c) => this.removeContainer(c.id, c.labels[LABEL.key], engine)));
        // A remote engine's homes and folder copies are volumes labelled with their key.
        await Promise.all(found.map((c) => engine.removeVolumes({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: c.labels[LABEL.key] ?? '' })));
        return found.map((c) => c.labels[LABEL.key] ?? '');
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
  }

  async removeContainer(id: string, key: string | undefined, on?: Engine): Promise<void> {
    const engine = on ?? (key !== undefined ? this.slots.get(key)?.engine?.engine : undefined);
    if (key !== undefined) {
      this.gone(key, 'The sandbox was removed.');
      const s = this.slots.get(key);
      if (s) {
        while (s.lock) await s.lock.catch(() => undefined);
        this.clearIdle(s);
        s.session?.close();
        this.slots.delete(key);
        this.specLabels.delete(key);
      }
    }
    if (!engine) throw new BerthError('internal', `No engine is known for the container ${id}.`);
    await engine.removeContainer(id);
    if (key !== undefined) await this.deps.egress?.releaseSandbox(key).catch(() => undefined);
    // On Podman the chat's network is its own: it goes with the container.
    if (key !== undefined && this.podman.get(engine)) await engine.removeNetwork(podmanChatNetwork(this.deps.instanceId, '', key).name).catch(() => undefined);
  }

  /** Running containers found at start-up get the same idle clock as ones Berth started. */
  adopt(key: string, containerId: string, settings: ProfileSettings, engine: EngineHandle): void {
    const s = this.slot(key);
    if (s.containerId) return;
    s.containerId = containerId;
    s.settings = settings;
    s.engine = engine;
    this.scheduleIdle(s);
  }

  private clearIdle(s: Slot): void {
    if (s.idleTimer !== null) this.deps.clock.clearTimeout(s.idleTimer);
    s.idleTimer = null;
  }

  private scheduleIdle(s: Slot): void {
    this.clearIdle(s);
    const minutes = s.settings?.retention.idleStopMinutes ?? 0;
    if (s.busy > 0 || minutes <= 0 || !s.containerId) return;
    s.idleTimer = this.deps.clock.setTimeout(() => {
      s.idleTimer = null;
      if (s.busy > 0 || s.lock) return;
      void this.stop(s.key, null, 'The sandbox stopped after being idle.').catch(() => undefined);
    }, minutes * 60_000);
  }

  /** At quit: stop or keep each container as its profile's retention says. */
  async dispose(): Promise<void> {
    const work: Promise<void>[] = [];
    for (const s of this.slots.values()) {
      this.clearIdle(s);
      const keep = s.settings?.retention.onQuit === 'keep';
      while (s.lock) await s.lock.catch(() => undefined);
      s.session?.close();
      s.session = null;
      if (!keep && s.containerId && s.engine) work.push(s.engine.engine.stopContainer(s.containerId, STOP_GRACE_SECONDS).catch(() => undefined));
    }
    await Promise.all(work);
    this.slots.clear();
  }
}

export { SANDBOX_HOME };

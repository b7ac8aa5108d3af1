/**
 * Container lifecycle per key: one container per key however many callers race, created on
 * first use, kept between turns, stopped when idle and at quit, recreated when its mounts
 * or settings changed or when it vanished.
 */
import path from 'node:path';
import type { ProfileSettings } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { Engine } from '../engine/dockerEngine.js';
import { LABEL, SANDBOX_HOME, type ContainerCreateBody } from '../policy/containerSpec.js';
import type { EngineHandle } from './engineRegistry.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import { containerNameFor, folderNameFor } from '../policy/names.js';
import { sandboxNetworkName } from '../policy/egress.js';
import { podmanChatNetwork } from '../engine/podmanNetworks.js';
import { RemoteCopySync, refuseDirectOnRemote } from './remoteSandbox.js';
import { copyVolumeFor } from '../policy/remoteSpec.js';
import { toDisposable } from '../base/disposables.js';
import type { SandboxRequest, Ready, SandboxLease, SandboxState, KeyState, SandboxContainersDeps } from './sandboxTypes.js';
import { recheckMounts } from './mountChecks.js';
import { SandboxNetworks, type BuildNetwork } from './sandboxNetworks.js';
import { runStartCommand } from './startCommand.js';
import { createContainer, findExisting, imageNoteOf, leaveEngine, openShell, specFor, stateOf, type StartContext } from './containerStart.js';

export type { SandboxRequest, Ready, SandboxLease, SandboxState, EngineRouter, SandboxContainersDeps, SandboxEgress } from './sandboxTypes.js';
import { ShellSession } from './shellSession.js';

const STOP_GRACE_SECONDS = 3;

export type GoneListener = (key: string, reason: string, replaced?: boolean) => void;

export class SandboxContainers {
  private readonly states = new Map<string, KeyState>();
  private readonly goneListeners = new Set<GoneListener>();

  /** What starting a container needs of this manager (containerStart.ts). */
  private readonly startContext: StartContext;
  /** What each engine is (Podman, its AppArmor profile) and the networks sandboxes join there. */
  private readonly networks: SandboxNetworks;

  constructor(private readonly deps: SandboxContainersDeps) {
    this.networks = new SandboxNetworks(deps);
    this.startContext = {
      deps,
      engineOf: (key, settings) => this.engineOf(key, settings),
      homeFor: (profile, key) => this.homeFor(profile, key),
      gone: (key, reason) => this.gone(key, reason),
    };
    this.remoteCopies = new RemoteCopySync(deps.dataDir);
  }

  /** Hears, just before it happens, that a key's container stops or goes away, and why (`replaced`: a new one takes its place at once). */
  onGone(listener: GoneListener): () => void {
    this.goneListeners.add(listener);
    return () => this.goneListeners.delete(listener);
  }

  private gone(key: string, reason: string, replaced = false): void {
    for (const l of this.goneListeners) l(key, reason, replaced);
  }

  homeFor(profile: string, key: string): string {
    return path.join(this.deps.dataDir, 'profiles', folderNameFor(profile), 'homes', folderNameFor(key));
  }

  private state(key: string): KeyState {
    let s = this.states.get(key);
    if (!s) {
      s = {
        key, name: containerNameFor(this.deps.instanceId, key), containerId: null, session: null, lock: null, lockKind: null,
        inUse: 0, drainWaiters: [], phase: null, error: null, stoppedByUs: false, busy: 0, idleTimer: null, settings: null, user: '', engine: null,
        image: null, requested: null, note: null,
      };
      this.states.set(key, s);
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
    const s = this.state(req.key);
    s.busy++;
    this.clearIdle(s);
    try {
      // Before the loop: nothing may await between its lock check and the bring-up taking the lock.
      const handle = this.handleFor(s, req);
      if (!this.networks.knows(handle)) await this.networks.learn(handle);
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
        const spec = specFor(this.startContext, made, s, this.handleFor(s, req), this.networks);
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
    const pinned = this.states.get(key)?.engine;
    if (pinned) return pinned.engine;
    if (settings) return this.deps.engines.forProfile(settings).engine;
    throw new BerthError('internal', `No engine is known for the sandbox ${key}.`);
  }

  /** Which engine a key's container is on (or would be created on), for the sandbox details. */
  engineRef(key: string, settings: ProfileSettings): EngineHandle['ref'] {
    return (this.states.get(key)?.engine ?? this.deps.engines.forProfile(settings)).ref;
  }

  /** The engine the profile names now, when the key's container is pinned to another (null when the same). */
  profileEngineRef(key: string, settings: ProfileSettings): EngineHandle['ref'] | null {
    const pinned = this.states.get(key)?.engine;
    const want = this.deps.engines.forProfile(settings);
    return pinned && pinned.ref.id !== want.ref.id ? want.ref : null;
  }

  /** A running sandbox stays on its engine after its profile's engine changed, and says so. */
  private stayNotice(s: KeyState, req: SandboxRequest): string[] {
    const want = this.deps.engines.forProfile(req.profile.settings);
    if (!s.engine || s.engine.ref.id === want.ref.id) return [];
    return [
      `This chat's sandbox keeps running on ${s.engine.ref.label}, although its profile now uses ${want.ref.label}. It moves when its sandbox stops (Stop in the sandbox details, or when idle); the home folder and installed packages do not move with it.`,
    ];
  }

  /** The engine answers again: errors that only said it did not are no longer true. */
  forgetEngineErrors(): void {
    for (const s of this.states.values()) {
      if (s.phase === 'error' && s.error?.code === 'engine_unreachable') {
        s.phase = null;
        s.error = null;
      }
    }
  }

  /** The profile's settings changed (a new image, say): the last failure may no longer hold. */
  forgetError(key: string): boolean {
    const s = this.states.get(key);
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
  private lease(s: KeyState, kind: 'command' | 'hold', ready: Ready): SandboxLease {
    if (kind === 'command') s.inUse++;
    const release = toDisposable(() => {
      s.busy--;
      if (kind === 'command' && --s.inUse === 0) for (const wake of s.drainWaiters.splice(0)) wake();
      if (this.states.get(s.key) === s) this.scheduleIdle(s);
    });
    return { ...ready, dispose: () => release.dispose() };
  }

  /** Leases in progress on a key (bring-ups included): 0 once every command and terminal let go. */
  leases(key: string): number {
    return this.states.get(key)?.busy ?? 0;
  }

  /** Runs fn as the slot's only bring-up or stop. */
  private async exclusive<T>(s: KeyState, kind: 'bringUp' | 'stop', fn: () => Promise<T>): Promise<T> {
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
  private currentSpec(s: KeyState): string | undefined {
    return this.specLabels.get(s.key);
  }

  /** The engine a slot's container is on while it has one (pinned), else its profile's. */
  private handleFor(s: KeyState, req: SandboxRequest): EngineHandle {
    return s.engine ?? this.deps.engines.forProfile(req.profile.settings);
  }

  private async bringUp(s: KeyState, req: SandboxRequest, spec: ContainerCreateBody): Promise<Ready> {
    const want = this.deps.engines.forProfile(req.profile.settings);
    const notices: string[] = [];
    if (s.engine && s.engine.ref.id !== want.ref.id) {
      this.specLabels.delete(s.key);
      notices.push(await leaveEngine(this.startContext, s, want));
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
        findExisting(this.startContext, knownId, req.key),
        engine.hasImage(req.image),
        this.networks.ensure(req, () => this.engineOf(req.key, req.profile.settings)),
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
        this.gone(req.key, 'The sandbox was recreated to apply changed folders or settings.', true);
        await engine.removeContainer(existing.id);
        existing = null;
        notices.push(
          'The sandbox was recreated to apply changed folders or settings (Docker cannot change the mounts of an existing container). Your attached folders and the sandbox home are kept; other container state, such as installed packages and running processes, was reset.',
        );
      }

      let expected = recheckMounts(req, this.deps.hostFacts(), this.deps.dataDir);
      if (existing?.running && shellStuck) {
        await engine.stopContainer(existing.id, STOP_GRACE_SECONDS);
        existing = { ...existing, running: false };
        notices.push("The sandbox's shell stopped answering, so Berth restarted the sandbox. Files are kept; running processes were ended.");
      }
      let id = existing ? existing.id : await createContainer(this.startContext, s, req, spec, imagePresent, notices);
      s.containerId = id;
      let session: ShellSession;
      try {
        session = await openShell(this.startContext, s, req, id, spec.User, existing?.running ?? false, expected);
      } catch (error) {
        // A stopped container remembers its network by id: once that network was removed
        // (docker network prune), it can never start again. Recreate it on the new network.
        if (!(existing && error instanceof BerthError && error.code === 'network_failed' && network)) throw error;
        await engine.removeContainer(id);
        existing = null;
        await this.networks.ensure(req, () => this.engineOf(req.key, req.profile.settings));
        id = await createContainer(this.startContext, s, req, spec, true, notices);
        s.containerId = id;
        expected = recheckMounts(req, this.deps.hostFacts(), this.deps.dataDir);
        session = await openShell(this.startContext, s, req, id, spec.User, false, expected);
        notices.push("The sandbox's network had been removed, so Berth recreated the network and the sandbox. Files in the home and attached folders are kept; other container state was reset.");
      }
      if (req.profile.settings.egress === 'allowlist') await this.deps.egress?.registerSandbox(req.profile.name, req.key, req.chatId, id);
      // Started here (not a shell opened in a running one): the environment's postStartCommand first.
      if (!existing?.running) notices.push(...(await runStartCommand(session, req, SANDBOX_HOME)));
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
    return [...this.states.keys()];
  }

  /** The Docker network a key's container joins, or null for none. */
  networkName(profile: { name: string; settings: ProfileSettings }, key: string): string | null {
    const { egress } = profile.settings;
    return egress === 'open' ? this.networks.openNetwork(this.engineOf(key, profile.settings), profile.name, key).name : egress === 'allowlist' ? sandboxNetworkName(this.deps.instanceId, key) : null;
  }

  /**
   * The network the sandbox joins: the profile's bridge ('open'), or its own sealed one
   * ('allowlist'). Public for a project environment's build, whose steps join the same network.
   */
  async ensureNetwork(req: Pick<SandboxRequest, 'key' | 'profile' | 'onProgress'>): Promise<void> {
    const handle = this.deps.engines.forProfile(req.profile.settings);
    if (!this.networks.knows(handle)) await this.networks.learn(handle);
    await this.networks.ensure(req, () => this.engineOf(req.key, req.profile.settings));
  }

  /** The network a profile's setup command builds on, as its egress says (SandboxNetworks.buildNetwork). */
  buildNetwork(profile: string, settings: ProfileSettings): Promise<BuildNetwork> {
    return this.networks.buildNetwork(profile, settings);
  }

  /** Whether the key's sandbox is (or would be) on an engine whose files are not this computer's. */
  isRemote(key: string): boolean {
    return this.states.get(key)?.engine?.ref.remote === true;
  }

  private readonly remoteCopies: RemoteCopySync;

  /** A remote sandbox's Review copies → their copies on this computer (remoteSandbox.ts). */
  syncRemoteCopies(key: string, mounts: readonly PlannedMount[]): Promise<void> {
    const s = this.states.get(key);
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
    const s = this.states.get(key);
    const handle = s?.engine;
    if (!s || !handle?.ref.remote) return;
    const ids = s.containerId
      ? [s.containerId]
      : (await handle.engine.findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: key })).map((c) => c.id);
    for (const id of ids) await this.removeContainer(id, key, handle.engine);
    for (const m of mounts) if (m.origin !== 'profile') await handle.engine.removeVolume(copyVolumeFor(s.name, m.target, m.source));
  }

  status(key: string, settings: ProfileSettings): Promise<SandboxState> {
    return stateOf(this.startContext, this.states.get(key), key, settings);
  }

  /** What the key's sandbox says about its image (a minimal one while the full one is prepared), or null. */
  imageNote(key: string): string | null {
    return imageNoteOf(this.deps, this.states.get(key), key);
  }

  /** Stops the command `owner` is running in the key's shell, if any; true when there was one. */
  async interrupt(key: string, owner: string): Promise<boolean> {
    return (await this.states.get(key)?.session?.interrupt(owner)) ?? false;
  }

  async stop(key: string, settings: ProfileSettings | null, reason = 'The sandbox was stopped.'): Promise<void> {
    const s = this.state(key);
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
    return new Set([...this.states.values()].flatMap((s) => (s.engine && s.containerId !== null ? [s.engine.ref.id] : [])));
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
        // A remote engine's homes and folder copies are volumes labelled with their key, and with their chat and profile (a fork's home before its first container).
        const volumeLabels = [...found.map((c) => ({ [LABEL.key]: c.labels[LABEL.key] ?? '' })), labels];
        await Promise.all(volumeLabels.map((l) => engine.removeVolumes({ [LABEL.instance]: this.deps.instanceId, ...l })));
        return found.map((c) => c.labels[LABEL.key] ?? '');
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
  }

  async removeContainer(id: string, key: string | undefined, on?: Engine): Promise<void> {
    const engine = on ?? (key !== undefined ? this.states.get(key)?.engine?.engine : undefined);
    if (key !== undefined) {
      this.gone(key, 'The sandbox was removed.');
      const s = this.states.get(key);
      if (s) {
        while (s.lock) await s.lock.catch(() => undefined);
        this.clearIdle(s);
        s.session?.close();
        this.states.delete(key);
        this.specLabels.delete(key);
      }
    }
    if (!engine) throw new BerthError('internal', `No engine is known for the container ${id}.`);
    await engine.removeContainer(id);
    if (key !== undefined) await this.deps.egress?.releaseSandbox(key).catch(() => undefined);
    // On Podman the chat's network is its own: it goes with the container.
    if (key !== undefined && this.networks.isPodman(engine)) await engine.removeNetwork(podmanChatNetwork(this.deps.instanceId, '', key).name).catch(() => undefined);
  }

  /** Running containers found at start-up get the same idle clock as ones Berth started. */
  adopt(key: string, containerId: string, settings: ProfileSettings, engine: EngineHandle): void {
    const s = this.state(key);
    if (s.containerId) return;
    s.containerId = containerId;
    s.settings = settings;
    s.engine = engine;
    this.scheduleIdle(s);
  }

  private clearIdle(s: KeyState): void {
    if (s.idleTimer !== null) this.deps.clock.clearTimeout(s.idleTimer);
    s.idleTimer = null;
  }

  private scheduleIdle(s: KeyState): void {
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
    for (const s of this.states.values()) {
      this.clearIdle(s);
      const keep = s.settings?.retention.onQuit === 'keep';
      while (s.lock) await s.lock.catch(() => undefined);
      s.session?.close();
      s.session = null;
      if (!keep && s.containerId && s.engine) work.push(s.engine.engine.stopContainer(s.containerId, STOP_GRACE_SECONDS).catch(() => undefined));
    }
    await Promise.all(work);
    this.states.clear();
  }
}

export { SANDBOX_HOME };

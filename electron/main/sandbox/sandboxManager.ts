/**
 * Container lifecycle per key: one container per key however many callers race, created on
 * first use, kept between turns, stopped when idle and at quit, recreated when its mounts
 * or settings changed or when it vanished.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProfileSettings, SandboxProgressEvent } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { ContainerDetails, Engine } from '../engine/dockerEngine.js';
import type { EngineHandle } from './engineRegistry.js';
import { APP_LABEL_VALUE, LABEL, SANDBOX_HOME, buildContainerSpec, type ContainerCreateBody } from '../policy/containerSpec.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import { containerNameFor, folderNameFor, networkNameFor } from '../policy/names.js';
import { killTreeScript } from '../policy/shellProtocol.js';
import { fillRemote, prepareRemoteVolumes } from './remoteFill.js';
import { specForRemoteEngine } from '../policy/remoteSpec.js';
import type { HostFacts } from '../policy/sensitivePaths.js';
import { FolderRefused, recheckAttachedFolder, resolveAttachableFolder } from '../workspace/folderValidation.js';
import { prepareHome, type Owner } from '../workspace/homeSeeder.js';
import type { Clock } from './clock.js';
import { ShellSession } from './shellSession.js';

export interface SandboxRequest {
  key: string;
  profile: { name: string; settings: ProfileSettings };
  /** The chat that owns the container, or '' for the profile's shared container. */
  chatId: string;
  image: string;
  mounts: readonly PlannedMount[];
  workingDir: string;
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
}

export interface SlotStatus {
  state: 'none' | 'pulling' | 'creating' | 'starting' | 'running' | 'stopped' | 'error';
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
  /** Callers holding the session between acquire() and release(). */
  inUse: number;
  drainWaiters: (() => void)[];
  phase: SlotStatus['state'] | null;
  error: BerthError | null;
  /** Set when Berth itself stopped the container, so a restart is not news to the user. */
  stoppedByUs: boolean;
  busy: number;
  idleTimer: unknown;
  settings: ProfileSettings | null;
  user: string;
  /** The engine the slot's container lives on: pinned, so a profile's new engine never moves it silently. */
  engine: EngineHandle | null;
}

/** The engines profiles name (sandbox/engineRegistry). */
export interface EngineRouter {
  forProfile(settings: ProfileSettings): EngineHandle;
  all(): EngineHandle[];
}

export interface SandboxManagerDeps {
  engines: EngineRouter;
  instanceId: string;
  dataDir: string;
  hostFacts: () => readonly HostFacts[];
  sandboxUser: (settings: ProfileSettings) => string;
  /** Who owns a new home on the host: the sandbox uid when Berth runs as root, else null (the user). */
  homeOwner: (settings: ProfileSettings) => Owner | null;
  clock: Clock;
}

const STOP_GRACE_SECONDS = 3;

export type GoneListener = (key: string, reason: string) => void;

export class SandboxManager {
  private readonly slots = new Map<string, Slot>();
  private readonly goneListeners = new Set<GoneListener>();

  constructor(private readonly deps: SandboxManagerDeps) {}

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
      };
      this.slots.set(key, s);
    }
    return s;
  }

  /**
   * A ready shell for the key's container. Concurrent callers share one bring-up and its
   * failure; a container that must be recreated waits until no command is running in it.
   */
  async acquire(req: SandboxRequest): Promise<Ready> {
    const s = this.slot(req.key);
    s.busy++;
    this.clearIdle(s);
    try {
      for (;;) {
        if (s.lock) {
          const kind = s.lockKind;
          const failure = await s.lock.then(() => null, (error: unknown) => error);
          if (failure && kind === 'bringUp') throw failure;
          continue;
        }
        const spec = this.specFor(req, s);
        const healthy = s.session !== null && !s.session.closed && s.containerId !== null;
        if (healthy && spec.Labels[LABEL.spec] === this.currentSpec(s)) {
          s.inUse++;
          return { session: s.session as ShellSession, containerId: s.containerId as string, user: s.user, notices: this.stayNotice(s, req), broughtUp: false };
        }
        if (healthy && s.inUse > 0) {
          await new Promise<void>((resolve) => s.drainWaiters.push(resolve));
          continue;
        }
        const ready = await this.exclusive(s, 'bringUp', () => this.bringUp(s, req, spec));
        s.inUse++;
        return ready;
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

  /** Marks the end of a use that acquire() began; starts the idle clock when nobody is left. */
  release(key: string): void {
    const s = this.slots.get(key);
    if (!s) return;
    s.busy = Math.max(0, s.busy - 1);
    this.endUse(s);
    this.scheduleIdle(s);
  }

  /** A command's use ends: a recreate waiting for the slot's commands to drain may go. */
  private endUse(s: Slot): void {
    s.inUse = Math.max(0, s.inUse - 1);
    if (s.inUse === 0) for (const wake of s.drainWaiters.splice(0)) wake();
  }

  /**
   * Like acquire(), for a long-lived user such as a terminal: it keeps the container from
   * idling until unhold(), but never delays a recreate (its terminal just ends then).
   */
  async hold(req: SandboxRequest): Promise<Ready> {
    const ready = await this.acquire(req);
    this.endUse(this.slot(req.key));
    return ready;
  }

  unhold(key: string): void {
    const s = this.slots.get(key);
    if (!s) return;
    s.busy = Math.max(0, s.busy - 1);
    this.scheduleIdle(s);
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

  private specFor(req: SandboxRequest, s: Slot): ContainerCreateBody {
    const user = this.deps.sandboxUser(req.profile.settings);
    const network = req.profile.settings.network === 'none'
      ? { mode: 'none' as const }
      : { mode: 'isolated' as const, name: networkNameFor(req.profile.name) };
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
    });
  }

  private recheckMounts(req: SandboxRequest): void {
    if (req.mounts.length === 0) return;
    const facts = this.deps.hostFacts();
    for (const m of req.mounts) recheckAttachedFolder(m.source, facts);
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
      const network = req.profile.settings.network === 'isolated' ? networkNameFor(req.profile.name) : null;
      const [found, imagePresent] = await Promise.all([
        this.findExisting(knownId, req.key),
        engine.hasImage(req.image),
        network ? engine.ensureNetwork(network, { [LABEL.app]: APP_LABEL_VALUE, [LABEL.profile]: req.profile.name }) : undefined,
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

      this.recheckMounts(req);
      if (existing?.running && shellStuck) {
        await engine.stopContainer(existing.id, STOP_GRACE_SECONDS);
        existing = { ...existing, running: false };
        notices.push("The sandbox's shell stopped answering, so Berth restarted the sandbox. Files are kept; running processes were ended.");
      }
      let id = existing ? existing.id : await this.create(s, req, spec, imagePresent);
      s.containerId = id;
      let session: ShellSession;
      try {
        session = await this.openShell(s, req, id, spec.User, existing?.running ?? false);
      } catch (error) {
        // A stopped container remembers its network by id: once that network was removed
        // (docker network prune), it can never start again. Recreate it on the new network.
        if (!(existing && error instanceof BerthError && error.code === 'network_failed' && network)) throw error;
        await engine.removeContainer(id);
        await engine.ensureNetwork(network, { [LABEL.app]: APP_LABEL_VALUE, [LABEL.profile]: req.profile.name });
        id = await this.create(s, req, spec, true);
        s.containerId = id;
        session = await this.openShell(s, req, id, spec.User, false);
        notices.push("The sandbox's network had been removed, so Berth recreated the network and the sandbox. Files in the home and attached folders are kept; other container state was reset.");
      }
      s.session = session;
      s.settings = req.profile.settings;
      s.user = spec.User;
      s.stoppedByUs = false;
      s.phase = 'running';
      this.specLabels.set(s.key, spec.Labels[LABEL.spec] as string);
      req.onProgress('ready', 'Sandbox ready', null);
      return { session, containerId: id, user: spec.User, notices, broughtUp: true };
    } catch (error) {
      s.phase = 'error';
      s.error = error instanceof BerthError ? error : new BerthError('internal', 'The sandbox could not be started.', { cause: error });
      throw s.error;
    }
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
  private async openShell(s: Slot, req: SandboxRequest, id: string, user: string, running: boolean): Promise<ShellSession> {
    const engine = this.engineOf(s.key);
    if (!running) {
      s.phase = 'starting';
      req.onProgress('starting', 'Starting the sandbox…', null);
      // Docker resolves bind sources again at every start.
      this.recheckMounts(req);
    }
    const [attached, started] = await Promise.allSettled([engine.attach(id), running ? Promise.resolve() : engine.startContainer(id)]);
    try {
      if (started.status === 'rejected') throw started.reason;
      if (attached.status === 'rejected') throw attached.reason;
      return await ShellSession.open(
        attached.value,
        (signal, serial) => engine.execOnce(id, ['/bin/sh', '-c', killTreeScript(signal, serial)], user).then(() => undefined),
        this.deps.clock.now,
      );
    } catch (error) {
      if (attached.status === 'fulfilled') attached.value.close();
      if (started.status === 'fulfilled') {
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

  private async create(s: Slot, req: SandboxRequest, spec: ContainerCreateBody, imagePresent: boolean): Promise<string> {
    const engine = this.engineOf(s.key);
    if (!imagePresent) {
      s.phase = 'pulling';
      req.onProgress('pulling', `Downloading the image ${req.image}…`, 0);
      await engine.pullImage(req.image, (p) => req.onProgress('pulling', p.message, p.fraction));
    }
    this.checkTemplate(req.profile.settings.homeTemplate);
    prepareHome(this.homeFor(req.profile.name, req.key), req.profile.settings.homeTemplate, this.deps.homeOwner(req.profile.settings));
    s.phase = 'creating';
    req.onProgress('creating', 'Creating the sandbox…', null);
    this.recheckMounts(req);
    // An engine whose files are not this computer's never gets a local path: volumes, filled by copy.
    const remote = s.engine?.ref.remote === true;
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

  /** A template is read on the host: the same deny-list as a mount applies (never ~ or ~/.ssh). */
  private checkTemplate(template: string | null): void {
    if (template === null || !fs.existsSync(template)) return;
    try {
      resolveAttachableFolder(template, this.deps.hostFacts());
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

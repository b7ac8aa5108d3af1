/**
 * A sandbox's use, live: the engine's stats stream for a chat whose details a
 * client has open, as `sandbox.stats` events, one stream per container however many clients
 * watch it, ended when the last one stops watching or goes (each watch is a lease); the size of
 * the chat's home and writable layer on request; and, now and then, whether any running sandbox
 * of this instance is near its memory or process limit (`sandbox.pressure`, for the sidebar).
 */
import type { SandboxUsage } from '../../../shared/contract.js';
import type { Clock } from '../base/clock.js';
import { folderSize } from '../base/folderSize.js';
import { toDisposable } from '../base/disposables.js';
import type { Engine, StatsStream } from '../engine/dockerEngine.js';
import type { Disposable, EventHub } from '../events.js';
import { LABEL } from '../policy/containerSpec.js';
import { pressureOf, samePressure, type Pressure } from './common/sandboxPressure.js';

export interface StatsServiceDeps {
  engine: Engine;
  events: EventHub;
  clock: Clock;
  instanceId: string;
  /** The chat's running container, or null (none, stopped, local backend). */
  runningContainer(chatId: string): Promise<string | null>;
  /** The chat's home folder on this computer, or null. */
  homeFolder(chatId: string): string | null;
  /** How often running sandboxes are checked against their limits; 0: never. */
  pressureEveryMs?: number;
}

interface Watched {
  containerId: string;
  /** The watchers' leases, by who watches (a client id). */
  watchers: Map<string, Disposable>;
  stream: Promise<StatsStream | null>;
}

export const DEFAULT_PRESSURE_EVERY_MS = 30_000;

export class StatsService {
  private readonly watched = new Map<string, Watched>();
  private readonly pressure = new Map<string, Pressure>();
  private timer: unknown = null;
  private disposed = false;

  constructor(private readonly deps: StatsServiceDeps) {
    this.schedule();
  }

  /** Starts (or joins) the chat's stream for `watcher`; false when no container runs. */
  async watch(chatId: string, watcher: string): Promise<boolean> {
    const existing = this.watched.get(chatId);
    if (existing && existing.watchers.has(watcher)) return true;
    const containerId = await this.deps.runningContainer(chatId);
    if (containerId === null || this.disposed) return false;
    let w = this.watched.get(chatId);
    if (!w || w.containerId !== containerId) {
      if (w) this.end(chatId, w);
      w = this.open(chatId, containerId);
    }
    const entry = w;
    entry.watchers.set(
      watcher,
      toDisposable(() => {
        entry.watchers.delete(watcher);
        if (entry.watchers.size === 0) this.end(chatId, entry);
      }),
    );
    return (await entry.stream) !== null;
  }

  unwatch(chatId: string, watcher: string): void {
    this.watched.get(chatId)?.watchers.get(watcher)?.dispose();
  }

  /** A client went: its watches end. */
  dropWatcher(watcher: string): void {
    for (const w of [...this.watched.values()]) w.watchers.get(watcher)?.dispose();
  }

  /** How many engine streams are open (tests: none once nobody watches). */
  openStreams(): number {
    return this.watched.size;
  }

  async usage(chatId: string): Promise<SandboxUsage> {
    const home = this.deps.homeFolder(chatId);
    const [size, container] = await Promise.all([home ? folderSize(home) : null, this.deps.runningContainer(chatId)]);
    const writable = container === null ? await this.anyContainer(chatId) : container;
    return {
      chatId,
      homeBytes: size?.bytes ?? null,
      homeCapped: size?.capped ?? false,
      writableLayerBytes: writable === null ? null : await this.deps.engine.writableLayerBytes(writable),
    };
  }

  private async anyContainer(chatId: string): Promise<string | null> {
    const found = await this.deps.engine.findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.chat]: chatId });
    return found[0]?.id ?? null;
  }

  private open(chatId: string, containerId: string): Watched {
    const w: Watched = { containerId, watchers: new Map(), stream: Promise.resolve(null) };
    this.watched.set(chatId, w);
    w.stream = this.deps.engine
      .streamStats(containerId, (sample) => {
        if (this.watched.get(chatId) !== w) return;
        this.deps.events.emit('sandbox.stats', { chatId, sample });
        this.notePressure(chatId, pressureOf(sample));
      })
      .then(
        (stream) => {
          // Nobody watches any more, or it was replaced while the engine answered.
          if (this.watched.get(chatId) !== w) {
            stream.close();
            return null;
          }
          // The container stopped: the stream ends; a client watches again when it runs again.
          void stream.ended.then(() => {
            if (this.watched.get(chatId) === w) this.watched.delete(chatId);
          });
          return stream;
        },
        () => {
          if (this.watched.get(chatId) === w) this.watched.delete(chatId);
          return null;
        },
      );
    return w;
  }

  private end(chatId: string, w: Watched): void {
    if (this.watched.get(chatId) === w) this.watched.delete(chatId);
    void w.stream.then((s) => s?.close());
  }

  private notePressure(chatId: string, now: Pressure): void {
    const before = this.pressure.get(chatId) ?? { memory: false, pids: false };
    if (samePressure(before, now)) return;
    if (now.memory || now.pids) this.pressure.set(chatId, now);
    else this.pressure.delete(chatId);
    this.deps.events.emit('sandbox.pressure', { chatId, ...now });
  }

  /** Each running sandbox of this instance: one reading from its stream, against its limits. */
  async checkPressure(): Promise<void> {
    let running: Array<{ id: string; chatId: string }>;
    try {
      running = (await this.deps.engine.findContainers({ [LABEL.instance]: this.deps.instanceId }))
        .filter((c) => c.running && c.labels[LABEL.chat])
        .map((c) => ({ id: c.id, chatId: c.labels[LABEL.chat] as string }));
    } catch {
      return; // the engine monitor says why
    }
    const alive = new Set(running.map((c) => c.chatId));
    for (const chatId of [...this.pressure.keys()]) if (!alive.has(chatId)) this.notePressure(chatId, { memory: false, pids: false });
    for (const c of running) {
      if (this.watched.has(c.chatId)) continue; // its stream says it already
      await this.readOnce(c.id, c.chatId);
    }
  }

  /** The first reading of the container's stream, then it is closed (or after 10 s without one). */
  private readOnce(containerId: string, chatId: string): Promise<void> {
    return new Promise<void>((resolve) => {
      let done = false;
      let stream: StatsStream | null = null;
      const timer = this.deps.clock.setTimeout(() => finish(), 10_000);
      const finish = () => {
        if (done) return;
        done = true;
        this.deps.clock.clearTimeout(timer);
        stream?.close();
        resolve();
      };
      this.deps.engine
        .streamStats(containerId, (sample) => {
          if (done) return;
          this.notePressure(chatId, pressureOf(sample));
          finish();
        })
        .then(
          (s) => {
            stream = s;
            if (done) s.close();
            else void s.ended.then(finish);
          },
          // Stopped or removed meanwhile: the next check sees it gone.
          finish,
        );
    });
  }

  private schedule(): void {
    const every = this.deps.pressureEveryMs ?? DEFAULT_PRESSURE_EVERY_MS;
    if (every <= 0 || this.disposed) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.checkPressure().finally(() => this.schedule());
    }, every);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    for (const [chatId, w] of [...this.watched]) this.end(chatId, w);
  }
}

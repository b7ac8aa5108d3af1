/**
 * Warm sandboxes: each profile with `warmPool > 0` keeps that many started containers ready,
 * each for a chat id reserved in the store (`warm_slots`). A new chat takes a reserved id, so
 * the container was made for it from the start: its labels name that chat, its home is that
 * chat's home, and the store says whose it is at every moment (the reservation until taken,
 * the chat after), so reaping, retention and the orphan sweep need no special case beyond
 * "a reserved id is alive".
 *
 * What a warm sandbox mounts is exactly what a new chat's first command would mount: the
 * chat has no attachments yet, so only the profile's own mounts and the reserved id's empty
 * slot folder at /workspace (review/slotFolders.ts, made by `warm`, removed by `discard`). The
 * chat's first Review-mode copy of a plain folder fills that slot and appears in the running
 * container; any other folder recreates the container with its mounts, as for any chat: a
 * chat's attachments stay the only host folders it can see.
 *
 * A profile whose chats took a prepared project environment (environment/) warms from it: the
 * prepared image with its variables and start folder (store/chatEnvironments WarmEnvironment),
 * exactly what a chat using it asks for, so the next chat on the folder finds its container made.
 * A chat that does not use it gets a new sandbox at its first command, and its progress says why.
 *
 * The pool never pulls an image (it warms only what is on the engine already), never warms a
 * local-backend or shared-scope profile, and gives up quietly on a failure: a chat then gets
 * its sandbox the ordinary way, with its progress and any error shown there.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Engine } from '../engine/dockerEngine.js';
import type { ChatFolders } from '../folders/chatFolders.js';
import { qualifyTaskId } from '../policy/containerKey.js';
import type { SandboxContainers } from './sandboxContainers.js';
import type { SandboxService } from './sandboxService.js';
import type { Disposable } from '../events.js';
import type { ProfileRecord, Store } from '../store/repositories.js';
import { loadWarmEnvironment, saveWarmEnvironment } from '../store/chatEnvironments.js';
import type { Clock } from '../base/clock.js';

export interface WarmPoolDeps {
  store: Store;
  engine: Pick<Engine, 'hasImage'>;
  clock: Clock;
  /** Brings up the sandbox a chat with this id would get (`warm`), held until a chat takes it. */
  sandbox: Pick<SandboxService, 'warm'>;
  /** What a reserved id that will not be used leaves: its containers and home, */
  containers: Pick<SandboxContainers, 'removeForChat' | 'homeFor'>;
  /** and its slot folder. */
  folders: Pick<ChatFolders, 'removeSlot'>;
  /** The egress proxy's image, which an 'allowlist' profile's sandbox needs besides its own. */
  egressImage?: string;
}

/** Why a new chat does not get a warm sandbox, in words for the chat's progress line. */
export type Miss = 'off' | 'refilling' | null;

interface Reservation {
  chatId: string;
  profile: string;
  /** Set once its sandbox is up: what keeps it from idling until a chat takes it. */
  release: (() => void) | null;
  /** A chat took it while it was still warming: that chat's first command joins the bring-up. */
  taken: boolean;
  /** The profile changed or went, or Berth is quitting: it is removed once its bring-up ends. */
  dropped: boolean;
  /** The project environment it is made from (WarmEnvironment.source), if any. */
  environment: string | null;
}

export class WarmPool implements Disposable {
  /** Reserved ids, warming or ready, in the order they were reserved. */
  private readonly reservations = new Map<string, Reservation>();
  private readonly filling = new Set<string>();
  /** Fills in progress, which quitting waits for before it removes what they made. */
  private readonly fills = new Set<Promise<void>>();
  private disposed = false;

  constructor(private readonly deps: WarmPoolDeps) {}

  /**
   * At start-up: reservations from an earlier run (a crash, or a quit that could not finish) are
   * dropped with their containers and homes, and every profile is then filled afresh.
   */
  async forgetEarlierRun(): Promise<void> {
    const earlier = this.deps.store.warmReservations.list();
    this.deps.store.warmReservations.clear();
    await Promise.all(earlier.map((s) => this.discard(s.chatId, s.profile).catch(() => undefined)));
  }

  /**
   * Takes a reserved chat id for a new chat of `profile`: one whose sandbox is ready, else one
   * still warming (its first command then waits only for the rest of that bring-up). The store
   * row goes in the same synchronous step, so the id is the chat's before anything can sweep.
   */
  take(profile: ProfileRecord): { chatId: string; environment: string | null } | { miss: Miss } {
    if (!this.eligible(profile)) return { miss: 'off' };
    const mine = [...this.reservations.values()].filter((s) => s.profile === profile.name && !s.dropped);
    const reservation = mine.find((s) => s.release !== null) ?? mine[0];
    if (!reservation || !this.deps.store.warmReservations.delete(reservation.chatId)) return { miss: 'refilling' };
    this.reservations.delete(reservation.chatId);
    reservation.taken = true;
    reservation.release?.();
    return { chatId: reservation.chatId, environment: reservation.environment };
  }

  /** How many of the profile's warm sandboxes are up and waiting for a chat. */
  readyCount(profile: string): number {
    return [...this.reservations.values()].filter((s) => s.profile === profile && s.release !== null).length;
  }

  /** Brings the profile's pool up to its size, in the background; one fill per profile at once. */
  fill(profile: ProfileRecord): void {
    if (this.disposed || !this.eligible(profile) || this.filling.has(profile.name)) return;
    this.filling.add(profile.name);
    const fill: Promise<void> = this.fillNow(profile).finally(() => {
      this.filling.delete(profile.name);
      this.fills.delete(fill);
    });
    this.fills.add(fill);
  }

  /**
   * What the profile's warm sandboxes are made from changed (its chats took another prepared
   * project environment): the ones waiting go and new ones are made from it. Warm sandboxes are
   * kept on this computer's engine only, as for every fill.
   */
  async rewarm(profile: ProfileRecord): Promise<void> {
    await this.drop(profile.name);
    if (profile.settings.engine.kind === 'default') this.fill(profile);
  }

  /** The profile changed or went: its warm sandboxes no longer match it. */
  async drop(profileName: string): Promise<void> {
    const ids = this.deps.store.warmReservations.list(profileName).map((s) => s.chatId);
    for (const chatId of ids) {
      this.deps.store.warmReservations.delete(chatId);
      const reservation = this.reservations.get(chatId);
      if (reservation) this.abandon(reservation);
    }
    await Promise.all(ids.map((id) => this.discard(id, profileName).catch(() => undefined)));
  }

  /**
   * Berth is quitting: no more fills, and every warm sandbox goes, with its home and slot
   * folder, whatever the profile keeps at quit. It was never a chat's, the next start makes it
   * again in about a second, and a data folder that is never opened again would otherwise keep
   * an exited container forever (the next start's clean-up, forgetEarlierRun, never comes).
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const reservation of [...this.reservations.values()]) this.abandon(reservation);
    // A bring-up in progress ends first, so nothing is made after it was removed.
    await Promise.allSettled([...this.fills]);
    const reserved = this.deps.store.warmReservations.list();
    this.deps.store.warmReservations.clear();
    await Promise.all(reserved.map((s) => this.discard(s.chatId, s.profile).catch(() => undefined)));
  }

  /** Removes the containers, home and slot folder made for a reserved id that will not be used. */
  private async discard(chatId: string, profile: string): Promise<void> {
    await this.deps.containers.removeForChat(chatId);
    fs.rmSync(this.deps.containers.homeFor(profile, qualifyTaskId(profile, chatId)), { recursive: true, force: true });
    this.deps.folders.removeSlot(profile, chatId);
  }

  private abandon(reservation: Reservation): void {
    reservation.dropped = true;
    reservation.release?.();
    reservation.release = null;
    this.reservations.delete(reservation.chatId);
  }

  private eligible(profile: ProfileRecord): boolean {
    const s = profile.settings;
    return s.warmPool > 0 && s.backend === 'docker' && s.containerScope === 'chat';
  }

  private async fillNow(profile: ProfileRecord): Promise<void> {
    const { store, engine, clock } = this.deps;
    const short = () => store.warmReservations.list(profile.name).length < profile.settings.warmPool;
    // A full pool asks the engine nothing (a fill is asked for at every new chat and sandbox start).
    if (!short()) return;
    // Never a pull or a build in the background: only what the engine already has is warmed.
    const more = profile.settings.egress === 'allowlist' && this.deps.egressImage ? [this.deps.egressImage] : [];
    // The project environment the profile's chats last took, while its prepared image is there (a pruned one is forgotten).
    let environment = loadWarmEnvironment(store.settings, profile.name);
    if (environment && !(await engine.hasImage(environment.image).catch(() => false))) {
      saveWarmEnvironment(store.settings, profile.name, null);
      environment = null;
    }
    for (const image of [profile.settings.image, ...more]) {
      if (!(await engine.hasImage(image).catch(() => false))) return;
    }
    while (!this.disposed && store.profiles.get(profile.name) && short()) {
      const reservation: Reservation = { chatId: randomUUID(), profile: profile.name, release: null, taken: false, dropped: false, environment: environment?.source ?? null };
      store.warmReservations.insert(reservation.chatId, profile.name, clock.now());
      this.reservations.set(reservation.chatId, reservation);
      let held: Disposable;
      try {
        held = await this.deps.sandbox.warm(profile, reservation.chatId, environment);
      } catch {
        // Berth is shutting down (its store may be closed already): the reservation's row is removed at
        // the next start, with the earlier run's other reservations.
        if (this.disposed) return;
        // A chat that took it meanwhile gets its sandbox the ordinary way (and sees why).
        if (!reservation.taken) {
          this.reservations.delete(reservation.chatId);
          store.warmReservations.delete(reservation.chatId);
          await this.discard(reservation.chatId, profile.name).catch(() => undefined);
        }
        return;
      }
      if (reservation.taken) {
        held.dispose();
      } else if (reservation.dropped || this.disposed) {
        held.dispose();
        if (!this.disposed) await this.discard(reservation.chatId, profile.name).catch(() => undefined);
        return;
      } else {
        reservation.release = () => held.dispose();
      }
    }
  }
}

/** Typed events from the core to whichever transport carries them. */
import type { EventName, EventPayload } from '../../shared/contract.js';

export interface Disposable {
  dispose(): void;
}

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export class EventHub {
  private readonly listeners = new Set<EventListener>();

  on(listener: EventListener): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const l of this.listeners) {
      try {
        l(event, payload);
      } catch {
        // A failing listener must not break the core or the other listeners.
      }
    }
  }
}

/** Events inside main, from a lower part to a higher one that subscribed: never sent to a page. */
export interface MainEventMap {
  /** The chat's running container no longer has its folders: the next bring-up replaces it, and its terminals start again there. */
  'folders.remounted': { chatId: string };
  /** The chat's folders moved inside the container it keeps: its running shells are told where (workspace/folderMoves). */
  'folders.moved': { chatId: string; note: string; restartIdle?: string };
  /** The chat's project environment moves its sandbox to another image or settings: its terminals start again there. */
  'environment.switched': { chatId: string };
}

/**
 * How a lower part of main tells a higher one something without calling up into it: the lower
 * one emits, the higher one subscribes (sandbox/ emits, terminal/ listens), so no service holds
 * a callback set on it after construction.
 */
export class MainEvents {
  private readonly listeners = new Map<keyof MainEventMap, Set<(payload: never) => void>>();

  on<E extends keyof MainEventMap>(event: E, listener: (payload: MainEventMap[E]) => void): Disposable {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return { dispose: () => set.delete(listener as (payload: never) => void) };
  }

  emit<E extends keyof MainEventMap>(event: E, payload: MainEventMap[E]): void {
    for (const l of this.listeners.get(event) ?? []) {
      try {
        (l as (payload: MainEventMap[E]) => void)(payload);
      } catch {
        // A failing listener must not break the part that emitted or the other listeners.
      }
    }
  }
}

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
  /**
   * Berth is about to read or write the chat's Review copies (review/, emitted and waited for):
   * a remote sandbox's copies are brought to this computer first (sandbox/ listens).
   */
  'copies.willUse': { chatId: string };
  /**
   * Berth is about to write into the chat's Review copies while its sandbox may run (Undo,
   * Restore, Discard, Refresh; emitted and waited for): a remote sandbox and its copy volumes go
   * first, its terminals wait for the new one (terminal/copyRewrite listens).
   */
  'copies.willRewrite': { chatId: string };
  /** That write is over, done or failed: what stopped for it starts again (terminal/copyRewrite). */
  'copies.rewritten': { chatId: string };
  /** The chat is being deleted (sandbox/DeletionService, emitted and waited for): its agent turns and terminals end first. */
  'chat.ending': { chatId: string };
}

/** A listener may take time (a Promise) for the events its emitter waits for (`emitAndWait`). */
type MainListener<E extends keyof MainEventMap> = (payload: MainEventMap[E]) => void | Promise<unknown>;

/**
 * How a lower part of main tells a higher one something without calling up into it: the lower
 * one emits, the higher one subscribes (sandbox/ emits, terminal/ listens), so no service holds
 * a callback set on it after construction. Where the lower part must wait for what the higher
 * ones do first (review/ before it reads a remote sandbox's copies), it emits and waits, as VS
 * Code's onWillSaveTextDocument participants are waited for.
 */
export class MainEvents {
  private readonly listeners = new Map<keyof MainEventMap, Set<MainListener<never>>>();

  on<E extends keyof MainEventMap>(event: E, listener: MainListener<E>): Disposable {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as MainListener<never>);
    return { dispose: () => set.delete(listener as MainListener<never>) };
  }

  emit<E extends keyof MainEventMap>(event: E, payload: MainEventMap[E]): void {
    for (const l of this.listening(event)) {
      try {
        void Promise.resolve(l(payload)).catch(() => undefined);
      } catch {
        // A failing listener must not break the part that emitted or the other listeners.
      }
    }
  }

  /** Runs the listeners one after another in the order they subscribed; the first that fails fails the emit, with its error. */
  async emitAndWait<E extends keyof MainEventMap>(event: E, payload: MainEventMap[E]): Promise<void> {
    for (const l of this.listening(event)) await l(payload);
  }

  private listening<E extends keyof MainEventMap>(event: E): MainListener<E>[] {
    return [...(this.listeners.get(event) ?? [])] as MainListener<E>[];
  }
}

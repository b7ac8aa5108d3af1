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

/** Waiting for a core event, as the UI would see it. */
import type { EventName, EventPayload } from '../../shared/contract.js';
import type { BerthCore } from '../../electron/main/core.js';

/** The first `name` event whose payload matches, or a clear error after `timeoutMs`. */
export function nextEvent<E extends EventName>(
  core: Pick<BerthCore, 'onEvent'>,
  name: E,
  matches: (payload: EventPayload<E>) => boolean,
  timeoutMs = 60_000,
): Promise<EventPayload<E>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`No matching ${name} event within ${timeoutMs / 1000} s.`));
    }, timeoutMs);
    const sub = core.onEvent((event: EventName, payload: unknown) => {
      if (event !== (name as EventName) || !matches(payload as EventPayload<E>)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(payload as EventPayload<E>);
    });
  });
}

/** Stands in for the engine when its address is unusable: every call fails with the reason. */
import type { BerthError } from '../../../shared/errors.js';
import type { Engine } from './engineInterface.js';

export function unavailableEngine(reason: BerthError, endpointLabel = 'DOCKER_HOST'): Engine {
  const fail = () => Promise.reject(reason);
  // Groups of calls (environmentImages) fail the same way, call by call.
  const group = new Proxy({}, { get: () => fail });
  return new Proxy({} as Engine, {
    get: (_target, property) =>
      property === 'endpointLabel' ? endpointLabel : property === 'close' ? () => undefined : property === 'environmentImages' ? () => group : fail,
  });
}

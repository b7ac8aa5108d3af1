/** Stands in for the engine when its address is unusable: every call fails with the reason. */
import type { BerthError } from '../../../shared/errors.js';
import type { Engine } from './engineInterface.js';

export function unavailableEngine(reason: BerthError, endpointLabel = 'DOCKER_HOST'): Engine {
  return new Proxy({} as Engine, {
    get: (_target, property) => (property === 'endpointLabel' ? endpointLabel : property === 'close' ? () => undefined : () => Promise.reject(reason)),
  });
}

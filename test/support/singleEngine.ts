/**
 * The engine router of a SandboxContainers under test when every profile uses one engine: the
 * handle a real EngineRegistry would give for the default setting.
 */
import type { Engine } from '../../electron/main/engine/dockerEngine.js';
import type { EngineHandle } from '../../electron/main/sandbox/engineRegistry.js';
import { EngineMonitor } from '../../electron/main/sandbox/engineMonitor.js';
import type { EngineRouter } from '../../electron/main/sandbox/sandboxContainers.js';
import { EventHub } from '../../electron/main/events.js';
import type { Clock } from '../../electron/main/base/clock.js';

export function singleEngine(engine: Engine, clock: Clock, remote = false): EngineRouter {
  const ref = { id: remote ? 'remote' : 'default', kind: remote ? ('tcp' as const) : ('default' as const), label: engine.endpointLabel, remote };
  const handle: EngineHandle = { engine, ref, monitor: new EngineMonitor(engine, new EventHub(), clock, ref) };
  return { forProfile: () => handle, all: () => [handle], local: () => handle };
}

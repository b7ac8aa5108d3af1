/**
 * Opt-in (--trace): wraps the core's Docker engine so every engine call's duration is recorded.
 * The wrapper only times promises; it adds microseconds, not milliseconds, to what it wraps.
 */
import fs from 'node:fs';
import os from 'node:os';
import { DockerEngine, type Engine } from '../electron/main/engine/dockerEngine.js';
import { resolveEngineEndpoint } from '../electron/main/policy/engineEndpoint.js';

export interface EngineCall {
  method: string;
  startMs: number;
  durationMs: number;
}

export interface TracingEngine {
  engine: Engine;
  /** Starts recording into a fresh list; returns it. */
  begin(): EngineCall[];
  /** Stops recording. */
  end(): void;
}

export function tracingEngine(now: () => number): TracingEngine {
  const inner = new DockerEngine(resolveEngineEndpoint(process.env, process.platform, os.homedir(), fs.existsSync));
  let current: EngineCall[] | null = null;
  const engine = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const calls = current;
        const startMs = now();
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (calls && result instanceof Promise) {
          const record = () => calls.push({ method: String(prop), startMs, durationMs: now() - startMs });
          result.then(record, record);
        }
        return result;
      };
    },
  }) as Engine;
  return {
    engine,
    begin() {
      current = [];
      return current;
    },
    end() {
      current = null;
    },
  };
}

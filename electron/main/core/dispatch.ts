/**
 * How a request reaches its handler: the contract's check, the client policy for connected
 * screens, and the error mapping (an engine found gone, a full disk, an internal error in words).
 * Counts the calls in progress so quitting can wait for them.
 */
import { z } from 'zod';
import { methods, type MethodName } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { clientRequestProblem } from '../policy/clientPolicy.js';
import type { EngineRegistry } from '../sandbox/engineRegistry.js';
import type { CallContext, HandlerTable } from './handler.js';

/** SQLite's "database or disk is full", or the file system's ENOSPC. */
function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    // One sentence: the caller ends it with a full stop, so the issues' own are dropped.
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message).replace(/\.+$/, ''))
    .join('; ');
}

export interface Dispatch {
  /** Berth itself calling (tests, configuration). */
  call(method: string, params: unknown, ctx?: CallContext): Promise<unknown>;
  /** A connected screen calling: host-level settings are refused first (policy/clientPolicy.ts). */
  callFromClient(method: string, params: unknown, ctx: CallContext): Promise<unknown>;
  /** Refuses every later call; returns the calls still in progress. */
  close(): Promise<unknown>[];
}

export function createDispatch(impl: HandlerTable, deps: { engines: EngineRegistry; dataDir: string }): Dispatch {
  let closed = false;
  const inFlight = new Set<Promise<unknown>>();

  async function handle(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
    if (!Object.prototype.hasOwnProperty.call(methods, method)) {
      throw new BerthError('invalid_request', `Unknown method "${method}".`);
    }
    const name = method as MethodName;
    const parsed = methods[name].request.safeParse(params ?? {});
    if (!parsed.success) {
      throw new BerthError('invalid_request', `The request for ${name} is not valid: ${describeIssues(parsed.error)}.`);
    }
    try {
      return await (impl[name] as (req: unknown, ctx: CallContext) => Promise<unknown>)(parsed.data, ctx);
    } catch (error) {
      // A call that found the engine gone updates the status bar at once.
      if (error instanceof BerthError && error.code === 'engine_unreachable') for (const h of deps.engines.all()) void h.monitor.check();
      if (error instanceof BerthError) throw error;
      if (isDiskFull(error)) {
        throw new BerthError('internal', `Berth could not save this: the disk that holds its data (${deps.dataDir}) is full. Nothing saved before was lost.`, {
          hint: 'Free some space on that disk, then try again.',
          cause: error,
        });
      }
      // The cause stays attached for logs; the user gets words, not a stack's first line.
      throw new BerthError('internal', `Berth could not complete ${name} because of an internal error.`, {
        hint: 'Try again; if it keeps happening, restart Berth.',
        cause: error,
      });
    }
  }

  async function call(method: string, params: unknown, ctx: CallContext = { client: null }): Promise<unknown> {
    if (closed) throw new BerthError('internal', 'Berth is shutting down.');
    const work = handle(method, params, ctx);
    inFlight.add(work);
    try {
      return await work;
    } finally {
      inFlight.delete(work);
    }
  }

  return {
    call,
    callFromClient(method, params, ctx) {
      const problem = clientRequestProblem(method, params);
      if (problem) return Promise.reject(new BerthError('invalid_request', problem, { hint: 'Change these in Berth’s configuration on this computer.' }));
      return call(method, params, ctx);
    },
    close() {
      closed = true;
      return [...inFlight];
    },
  };
}

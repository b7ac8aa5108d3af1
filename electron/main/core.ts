/**
 * The composition root: builds the services once (core/services.ts) and returns the one API
 * object that every transport (in-process, Electron IPC, the browser host's JSON-RPC) exposes.
 * Each contract namespace's handlers are in core/handlers/, the request check and error mapping
 * in core/dispatch.ts. Never imports Electron, so it runs and is tested under plain Node.
 */
import { randomUUID } from 'node:crypto';
import { methods, type MethodName, type Request, type Response } from '../../shared/contract.js';
import type { Disposable, EventListener } from './events.js';
import { createApiChats, type ApiChats } from './agent/apiChats.js';
import type { CoreOptions } from './core/options.js';
import { buildServices } from './core/services.js';
import { createDispatch } from './core/dispatch.js';
import { start, stop } from './core/lifecycle.js';
import type { HandlerTable } from './core/handler.js';
import { profileHandlers } from './core/handlers/profiles.js';
import { chatHandlers } from './core/handlers/chats.js';
import { forkHandlers } from './core/handlers/fork.js';
import { workspaceHandlers } from './core/handlers/workspace.js';
import { sandboxHandlers } from './core/handlers/sandbox.js';
import { terminalHandlers } from './core/handlers/terminal.js';
import { agentHandlers } from './core/handlers/agent.js';
import { reviewHandlers } from './core/handlers/review.js';
import { networkHandlers } from './core/handlers/network.js';
import { engineHandlers } from './core/handlers/engine.js';
import { portHandlers } from './core/handlers/ports.js';
import { environmentHandlers } from './core/handlers/environment.js';

export type { CoreOptions } from './core/options.js';
export { DEFAULT_REAP_INTERVAL_MS } from './core/lifecycle.js';

type Handler<M extends MethodName> = (request: Request<M>) => Promise<Response<M>>;
type GroupOf<M> = M extends `${infer G}.${string}` ? G : never;
type VerbOf<M> = M extends `${string}.${infer V}` ? V : never;
/** `core.chats.create(…)` for `chats.create`: every contract method, grouped by its prefix. */
export type GroupedApi = {
  [G in GroupOf<MethodName>]: { [M in MethodName as GroupOf<M> extends G ? VerbOf<M> : never]: Handler<M> };
};

export interface BerthCore extends GroupedApi {
  /** Calls a method by name with an unchecked payload, as Berth itself (tests, configuration). */
  call(method: string, params: unknown): Promise<unknown>;
  /**
   * A connected screen (a window, a browser tab): its calls are client calls (host-level
   * settings are refused: policy/clientPolicy.ts), and terminals
   * pace their output to it until it disposes.
   */
  connectClient(): ClientSession;
  onEvent(listener: EventListener): Disposable;
  /** The OpenAI-compatible API's way in (browser host): conversations map to chats by policy/apiChatId. */
  readonly apiChats: ApiChats;
  profileNames(): string[];
  /** How many warm sandboxes of the profile are up and waiting for a new chat (tests, bench). */
  warmReady(profile: string): number;
  /** Removes this instance's containers whose chat or profile no longer exists; returns how many. */
  reap(): Promise<number>;
  /** Settles when start-up work (the first orphan sweep) is done. */
  readonly ready: Promise<void>;
  readonly instanceId: string;
  dispose(): Promise<void>;
}

export interface ClientSession {
  readonly id: string;
  call(method: string, params: unknown): Promise<unknown>;
  dispose(): void;
}

export function createCore(options: CoreOptions): BerthCore {
  const s = buildServices(options);
  const impl: HandlerTable = {
    ...profileHandlers(s),
    ...chatHandlers(s),
    ...forkHandlers(s),
    ...workspaceHandlers(s),
    ...sandboxHandlers(s),
    ...terminalHandlers(s),
    ...agentHandlers(s),
    ...reviewHandlers(s),
    ...networkHandlers(s),
    ...engineHandlers(s),
    ...portHandlers(s),
    ...environmentHandlers(s),
  };
  const dispatch = createDispatch(impl, s);
  const started = start(s, options.reapIntervalMs);

  // core.chats.create(…) and the like: Berth itself calling (tests, configuration), not a screen.
  const grouped = {} as Record<string, Record<string, (req: unknown) => Promise<unknown>>>;
  for (const method of Object.keys(methods)) {
    const [group, verb] = method.split('.') as [string, string];
    (grouped[group] ??= {})[verb] = (req) => dispatch.call(method, req);
  }

  let disposed = false;
  return {
    ...(grouped as unknown as GroupedApi),
    apiChats: createApiChats(s.sessions, s.agent, s.events),
    profileNames: () => s.store.profiles.list().map((p) => p.name),
    warmReady: (profile) => s.pool.readyCount(profile),
    call: (method, params) => dispatch.call(method, params),
    connectClient() {
      const id = randomUUID();
      s.terminals.addClient(id);
      return {
        id,
        call: (method, params) => dispatch.callFromClient(method, params, { client: id }),
        dispose: () => {
          s.terminals.removeClient(id);
          s.stats.dropWatcher(id);
        },
      };
    },
    onEvent: (listener) => s.events.on(listener),
    reap: () => started.reaper.reap(),
    ready: started.ready,
    instanceId: s.instanceId,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await stop(s, started, dispatch.close());
    },
  };
}

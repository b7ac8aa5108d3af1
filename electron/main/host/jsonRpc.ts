/**
 * JSON-RPC 2.0 over one message string (docs/transport.md). Turns a message into a call on the
 * core and the outcome into a response string. Never throws and never rejects: bad input gets
 * an error response (or nothing, for a notification), so one bad message never ends a connection.
 */
import { isMethodName } from '../../../shared/contract.js';
import { isBerthError, toErrorPayload } from '../../../shared/errors.js';

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
/** Any BerthError other than invalid_request; `data.code` says which. */
export const RPC_BERTH_ERROR = -32000;

export type RpcId = string | number | null;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: { code: string; hint?: string };
}

export type RpcResponse =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId; error: RpcErrorObject };

export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params: unknown;
}

export interface DispatcherOptions {
  /** Runs a method: `core.call`. */
  call: (method: string, params: unknown) => Promise<unknown>;
  /** Which method names exist; by default the contract's. */
  isMethod?: (method: string) => boolean;
  /** Sees what the client is never shown: unexpected errors, with their method. */
  onInternalError?: (error: unknown, method: string | null) => void;
}

const INTERNAL_HINT = 'Try again; if it keeps happening, restart Berth.';

export function errorResponse(id: RpcId, error: RpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error } satisfies RpcResponse);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValidId(value: unknown): value is RpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Maps a failure from the core to the JSON-RPC error the client sees. */
export function toRpcError(error: unknown): RpcErrorObject {
  if (isBerthError(error)) {
    const { message, ...data } = toErrorPayload(error);
    return { code: error.code === 'invalid_request' ? RPC_INVALID_PARAMS : RPC_BERTH_ERROR, message, data };
  }
  // Never the raw message: it may carry paths, stack fragments or engine internals.
  return { code: RPC_INTERNAL_ERROR, message: 'internal error', data: { code: 'internal', hint: INTERNAL_HINT } };
}

export function notification(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params } satisfies RpcNotification);
}

export type Dispatch = (message: string) => Promise<string | null>;

/** Returns a function from one incoming message to the response to send (null: send nothing). */
export function createDispatcher(options: DispatcherOptions): Dispatch {
  const isMethod = options.isMethod ?? isMethodName;
  const report = (error: unknown, method: string | null) => {
    try {
      options.onInternalError?.(error, method);
    } catch {
      // Reporting must never break answering.
    }
  };

  async function dispatch(message: string): Promise<string | null> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return errorResponse(null, { code: RPC_PARSE_ERROR, message: 'Parse error: the message is not valid JSON.' });
    }
    if (Array.isArray(parsed)) {
      return errorResponse(null, {
        code: RPC_INVALID_REQUEST,
        message: 'Batch requests are not supported: send one request per message.',
      });
    }
    if (!isPlainObject(parsed)) {
      return errorResponse(null, { code: RPC_INVALID_REQUEST, message: 'Invalid request: a request is a JSON object.' });
    }

    const hasId = Object.prototype.hasOwnProperty.call(parsed, 'id');
    const rawId = parsed.id;
    const id: RpcId = hasId && isValidId(rawId) ? rawId : null;
    const invalid = (detail: string) => errorResponse(id, { code: RPC_INVALID_REQUEST, message: `Invalid request: ${detail}` });

    if (parsed.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0".');
    if (hasId && !isValidId(rawId)) return invalid('"id" must be a string, a number or null.');
    if (typeof parsed.method !== 'string' || parsed.method.length === 0) return invalid('"method" must be a non-empty string.');
    const method = parsed.method;
    const params = parsed.params;
    if (params !== undefined && typeof params !== 'object') return invalid('"params" must be an object.');

    let response: string;
    if (!isMethod(method)) {
      response = errorResponse(id, { code: RPC_METHOD_NOT_FOUND, message: `Method not found: "${method.slice(0, 100)}".` });
    } else if (Array.isArray(params) || params === null) {
      response = errorResponse(id, {
        code: RPC_INVALID_PARAMS,
        message: `The request for ${method} is not valid: params are passed by name, as one object.`,
        data: { code: 'invalid_request' },
      });
    } else {
      try {
        const result = await options.call(method, params ?? {});
        response = JSON.stringify({ jsonrpc: '2.0', id, result: result === undefined ? null : result } satisfies RpcResponse);
      } catch (error) {
        if (!isBerthError(error) || error.code === 'internal') report(error, method);
        response = errorResponse(id, toRpcError(error));
      }
    }
    // A notification (no id) is dispatched but never answered, whatever happened.
    return hasId ? response : null;
  }

  return async (message) => {
    try {
      return await dispatch(message);
    } catch (error) {
      // Unreachable by design; kept so a bug here still answers instead of dropping the socket.
      report(error, null);
      return errorResponse(null, toRpcError(error));
    }
  };
}

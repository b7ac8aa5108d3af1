/**
 * Error codes that cross the contract. Every refusal or failure the core reports carries one,
 * with a message written for the person using the app: what happened and what to do next.
 */
export const ERROR_CODES = [
  'invalid_request',
  'not_found',
  'already_exists',
  'workspace_refused',
  'workspace_changed',
  'engine_unreachable',
  'image_unavailable',
  'registry_unreachable',
  'network_failed',
  'home_template_failed',
  'container_failed',
  'container_vanished',
  'shell_failed',
  'provider_not_configured',
  'provider_auth',
  'provider_model',
  'provider_unreachable',
  'provider_failed',
  'agent_busy',
  'secret_unavailable',
  'review_too_large',
  'review_failed',
  'review_busy',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class BerthError extends Error {
  readonly code: ErrorCode;
  /** A short next step the UI can show under the message. */
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BerthError';
    this.code = code;
    this.hint = options?.hint;
  }
}

export function isBerthError(value: unknown): value is BerthError {
  return value instanceof BerthError;
}

/** The plain shape an error takes on the wire (IPC, JSON-RPC). */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  hint?: string;
}

/** What the user reads when a failure has no words of its own (not a BerthError, or no message). */
export const FALLBACK_ERROR_MESSAGE = 'Something went wrong inside Berth. Try again; if it keeps happening, restart the app.';

export function toErrorPayload(error: unknown): ErrorPayload {
  if (isBerthError(error)) {
    return error.hint === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, hint: error.hint };
  }
  return { code: 'internal', message: FALLBACK_ERROR_MESSAGE };
}

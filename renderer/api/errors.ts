/** Errors from main, as the UI shows them: the message as is, and the next step (hint). */
import { FALLBACK_ERROR_MESSAGE } from '../../shared/errors';

export interface ApiErrorInfo {
  code: string;
  message: string;
  hint: string | null;
}

/** An Error carrying the contract's error code and hint, as both transports reject with. */
export class ApiError extends Error {
  readonly code: string;
  readonly hint: string | undefined;

  constructor(code: string, message: string, hint?: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.hint = hint;
  }
}

/** Electron prefixes errors rejected across ipcRenderer.invoke with this; the rest is main's message. */
const IPC_PREFIX = /^Error invoking remote method '[^']*': (?:[A-Za-z]*Error: )?/;

function stringProp(value: object, key: string): string | undefined {
  const v = (value as Record<string, unknown>)[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Normalises anything a call rejected with into an ApiError (Error, plain `{code,message,hint}`, string). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (typeof error === 'object' && error !== null) {
    const message = stringProp(error, 'message')?.replace(IPC_PREFIX, '') ?? FALLBACK_ERROR_MESSAGE;
    return new ApiError(stringProp(error, 'code') ?? 'internal', message, stringProp(error, 'hint'));
  }
  if (typeof error === 'string' && error !== '') return new ApiError('internal', error);
  return new ApiError('internal', FALLBACK_ERROR_MESSAGE);
}

export function errorInfo(error: unknown): ApiErrorInfo {
  const e = toApiError(error);
  return { code: e.code, message: e.message, hint: e.hint ?? null };
}

/**
 * When to try a provider request again, and after how long. Pure: the clock and the dice are
 * injected so tests can pin them.
 */

export interface RetryOptions {
  /** Attempts in all, the first included. */
  maxAttempts?: number;
  baseMs?: number;
  capMs?: number;
  /** A server asking for a long pause is obeyed only up to this; beyond it the user is better told. */
  retryAfterCapMs?: number;
  /** For status null: the caller judged the network error transient and no response byte arrived. */
  retryable?: boolean;
  /** In [0, 1), like Math.random. */
  random?: () => number;
  /** For Retry-After given as an HTTP date. */
  now?: () => number;
}

export const RETRY_DEFAULTS = { maxAttempts: 4, baseMs: 500, capMs: 8_000, retryAfterCapMs: 30_000 } as const;

// Rate limits and a busy or restarting gateway pass; a bad request, key or model does not.
const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/**
 * The wait before the next attempt, or null to give up.
 * @param attempt the attempt that just failed, counting from 1
 * @param status its HTTP status, or null when it failed before any response arrived
 */
export function retryDelayMs(
  attempt: number,
  status: number | null,
  retryAfterHeader: string | null,
  opts: RetryOptions = {},
): number | null {
  const maxAttempts = opts.maxAttempts ?? RETRY_DEFAULTS.maxAttempts;
  if (attempt >= maxAttempts) return null;
  if (status === null ? opts.retryable !== true : !RETRYABLE_STATUS.has(status)) return null;

  const retryAfter = status === null ? null : parseRetryAfterMs(retryAfterHeader, opts.now ?? Date.now);
  if (retryAfter !== null) return Math.min(retryAfter, opts.retryAfterCapMs ?? RETRY_DEFAULTS.retryAfterCapMs);

  // Full jitter: clients that failed together do not all come back together.
  const ceiling = Math.min(opts.capMs ?? RETRY_DEFAULTS.capMs, (opts.baseMs ?? RETRY_DEFAULTS.baseMs) * 2 ** (attempt - 1));
  return Math.floor((opts.random ?? Math.random)() * ceiling);
}

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterMs(header: string | null, now: () => number = Date.now): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // Only a date-looking value: Date.parse would otherwise read things like "1 2" as a date.
  if (!/[a-z]/i.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now());
}

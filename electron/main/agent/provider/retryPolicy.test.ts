import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs, retryDelayMs } from './retryPolicy.js';

const top = () => 0.999_999;

describe('retryDelayMs', () => {
  it.each([429, 500, 502, 503, 504])('retries %i', (status) => {
    expect(retryDelayMs(1, status, null, { random: top })).toBe(499);
  });

  it.each([400, 401, 403, 404, 422])('does not retry %i', (status) => {
    expect(retryDelayMs(1, status, null, { random: top })).toBeNull();
  });

  it('retries a network error only when the caller says it is retryable', () => {
    expect(retryDelayMs(1, null, null, { random: top })).toBeNull();
    expect(retryDelayMs(1, null, null, { random: top, retryable: true })).toBe(499);
  });

  it('backs off exponentially from 500 ms up to 8 s, with full jitter', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7].map((a) => retryDelayMs(a, 503, null, { random: top, maxAttempts: 99 }));
    expect(ceilings).toEqual([499, 999, 1999, 3999, 7999, 7999, 7999]);
    expect(retryDelayMs(3, 503, null, { random: () => 0 })).toBe(0);
    expect(retryDelayMs(3, 503, null, { random: () => 0.5 })).toBe(1000);
  });

  it('gives up after 4 attempts by default, or after maxAttempts', () => {
    expect(retryDelayMs(3, 503, null, { random: top })).not.toBeNull();
    expect(retryDelayMs(4, 503, null, { random: top })).toBeNull();
    expect(retryDelayMs(1, 503, null, { random: top, maxAttempts: 1 })).toBeNull();
    expect(retryDelayMs(2, 503, null, { random: top, maxAttempts: 3 })).toBe(999);
  });

  it('honours Retry-After in seconds or as an HTTP date, capped at 30 s', () => {
    const now = () => Date.UTC(2025, 0, 1, 12, 0, 0);
    expect(retryDelayMs(1, 429, '7', { random: top })).toBe(7000);
    expect(retryDelayMs(1, 503, 'Wed, 01 Jan 2025 12:00:12 GMT', { random: top, now })).toBe(12_000);
    expect(retryDelayMs(1, 429, '120', { random: top })).toBe(30_000);
    expect(retryDelayMs(1, 429, 'soon-ish', { random: top })).toBe(499);
    // Retry-After never resurrects a request the policy would not retry.
    expect(retryDelayMs(1, 400, '1', { random: top })).toBeNull();
    expect(retryDelayMs(4, 429, '1', { random: top })).toBeNull();
  });
});

describe('parseRetryAfterMs', () => {
  it('reads seconds, dates (past ones as 0) and rejects junk', () => {
    const now = () => Date.UTC(2025, 0, 1, 12, 0, 0);
    expect(parseRetryAfterMs(' 1.5 ')).toBe(1500);
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('-3')).toBeNull();
    expect(parseRetryAfterMs('1 2')).toBeNull();
    expect(parseRetryAfterMs(null)).toBeNull();
  });
});

/**
 * The browser host's pure access checks: who may talk to it. No I/O; the server applies them
 * to every HTTP request and WebSocket upgrade before anything else happens.
 *
 * - Host must be exactly `127.0.0.1:<port>` or `localhost:<port>` (defeats DNS rebinding).
 * - Origin, when present, must be exactly `http://127.0.0.1:<port>` or `http://localhost:<port>`
 *   (defeats cross-site requests); a WebSocket upgrade must carry one.
 * - The token comes from `?token=` or the `berth_token` cookie and is compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export const TOKEN_COOKIE = 'berth_token';

/** What the 401 body says: how to get in. */
export const UNAUTHORIZED_MESSAGE =
  'Berth needs its access token. Open the URL that `npm run web` printed (it ends in ?token=...).\n';

/** Constant-time comparison; lengths differ without the comparison taking less time. */
export function tokensEqual(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string' || expected.length === 0) return false;
  // Hash both sides so timingSafeEqual always compares equal-length buffers.
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(given, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function allowedOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

export function isAllowedHost(host: string | undefined, port: number): boolean {
  return typeof host === 'string' && allowedHosts(port).includes(host);
}

/**
 * An absent Origin is allowed for plain requests (a browser sends none on a top-level GET);
 * a WebSocket upgrade must carry an allowed one (browsers always send it there).
 */
export function isAllowedOrigin(origin: string | undefined, port: number, kind: 'plain' | 'upgrade'): boolean {
  if (origin === undefined) return kind === 'plain';
  return allowedOrigins(port).includes(origin);
}

/** The value of one cookie from a Cookie header, or null. */
export function cookieValue(cookieHeader: string | undefined, name: string): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return null;
}

/** The `token` query parameter of a request target (`/path?token=…`), or null. */
export function queryToken(requestTarget: string | undefined): string | null {
  if (!requestTarget) return null;
  const q = requestTarget.indexOf('?');
  if (q < 0) return null;
  const hash = requestTarget.indexOf('#', q);
  return new URLSearchParams(requestTarget.slice(q + 1, hash < 0 ? undefined : hash)).get('token');
}

/** The tokens a request offers, from the query and from the cookie. */
export function requestTokens(requestTarget: string | undefined, cookieHeader: string | undefined): { query: string | null; cookie: string | null } {
  return { query: queryToken(requestTarget), cookie: cookieValue(cookieHeader, TOKEN_COOKIE) };
}

export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

export interface AccessRequest {
  method: string | undefined;
  /** The request target, `/path?query`. */
  url: string | undefined;
  host: string | undefined;
  origin: string | undefined;
  cookie: string | undefined;
  /** A WebSocket upgrade rather than a plain request. */
  upgrade: boolean;
}

export type AccessDecision =
  | { ok: true; /** The request proved the token in its query: set the cookie. */ setCookie: boolean }
  | { ok: false; status: 401 | 403; message: string };

/** Host first, then Origin, then the token: the order the server answers in. */
export function checkAccess(req: AccessRequest, expected: { port: number; token: string }): AccessDecision {
  if (!isAllowedHost(req.host, expected.port)) {
    return { ok: false, status: 403, message: 'Berth only answers requests addressed to 127.0.0.1 or localhost on its own port.\n' };
  }
  if (!isAllowedOrigin(req.origin, expected.port, req.upgrade ? 'upgrade' : 'plain')) {
    return { ok: false, status: 403, message: 'Berth only answers its own pages: this request came from another origin.\n' };
  }
  const offered = requestTokens(req.url, req.cookie);
  const byQuery = tokensEqual(expected.token, offered.query);
  const byCookie = tokensEqual(expected.token, offered.cookie);
  if (!byQuery && !byCookie) return { ok: false, status: 401, message: UNAUTHORIZED_MESSAGE };
  const method = (req.method ?? '').toUpperCase();
  return { ok: true, setCookie: byQuery && !req.upgrade && (method === 'GET' || method === 'HEAD') };
}

/**
 * The browser host's pure access checks: who may talk to it. No I/O; the server applies them
 * to every HTTP request and WebSocket upgrade before anything else happens.
 *
 * - Host must be exactly `127.0.0.1:<port>` or `localhost:<port>` (defeats DNS rebinding).
 * - Origin, when present, must be exactly `http://127.0.0.1:<port>` or `http://localhost:<port>`
 *   (defeats cross-site requests); a WebSocket upgrade must carry one.
 * - The token is compared in constant time. It travels in the URL path, `/t/<token>/…`, for the
 *   page, its assets and its WebSocket (`/t/<token>/rpc`); `?token=` counts only on `/` (which
 *   redirects into `/t/<token>/`) and on `/rpc` (for clients that are not a page). There is no
 *   cookie: cookies ignore ports, so the browser would hand one to every other server on
 *   127.0.0.1/localhost (any dev server), and that server could then drive Berth.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Where the WebSocket answers: `/rpc?token=…`, or `/t/<token>/rpc`. */
export const RPC_PATH = '/rpc';
/** Every page path starts with this and the token: `/t/<token>/…`. */
export const TOKEN_PATH_PREFIX = '/t/';

/** What the 401 body says: how to get in. */
export const UNAUTHORIZED_MESSAGE =
  'Berth needs its access token. Open the URL that `npm run web` printed (it ends in ?token=...).\n';

/** The same for an API client, whose user sets an API key rather than opening a URL. */
export const API_UNAUTHORIZED_MESSAGE =
  "Berth's API needs its access token as the API key (Authorization: Bearer <token>): the part after ?token= in the URL that `npm run web` printed.";

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

/** The `token` query parameter of a request target (`/path?token=…`), or null. */
export function queryToken(requestTarget: string | undefined): string | null {
  if (!requestTarget) return null;
  const q = requestTarget.indexOf('?');
  if (q < 0) return null;
  const hash = requestTarget.indexOf('#', q);
  return new URLSearchParams(requestTarget.slice(q + 1, hash < 0 ? undefined : hash)).get('token');
}

/** The path of a request target, without its query or fragment (`/t/x/a.js?v=1` → `/t/x/a.js`). */
export function requestPath(requestTarget: string | undefined): string {
  const target = requestTarget ?? '';
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
}

/**
 * Splits `/t/<token><rest>` into the token (percent-decoded; null when it cannot be) and the raw
 * rest of the path (`''` for `/t/<token>` itself, else starting with `/`). Null for any other path.
 */
export function splitTokenPath(rawPath: string): { token: string | null; rest: string } | null {
  if (!rawPath.startsWith(TOKEN_PATH_PREFIX)) return null;
  const slash = rawPath.indexOf('/', TOKEN_PATH_PREFIX.length);
  const segment = slash < 0 ? rawPath.slice(TOKEN_PATH_PREFIX.length) : rawPath.slice(TOKEN_PATH_PREFIX.length, slash);
  let token: string | null;
  try {
    token = decodeURIComponent(segment);
  } catch {
    token = null;
  }
  return { token, rest: slash < 0 ? '' : rawPath.slice(slash) };
}

/** The page's home, `/t/<token>/`: where `/?token=…` and `/t/<token>` redirect to. */
export function homePath(token: string): string {
  return `${TOKEN_PATH_PREFIX}${encodeURIComponent(token)}/`;
}

export interface AccessRequest {
  /** The request target, `/path?query`. */
  url: string | undefined;
  host: string | undefined;
  origin: string | undefined;
  /** A WebSocket upgrade rather than a plain request. */
  upgrade: boolean;
  /** The Authorization header: `Bearer <token>` admits the OpenAI-compatible API under /v1/. */
  authorization?: string | undefined;
}

/** Where the OpenAI-compatible API answers: `/v1/…` with a Bearer token, or `/t/<token>/v1/…`. */
export const API_PREFIX = '/v1/';

function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? (m[1] as string) : null;
}

/** What an admitted request asks for. */
export type Route =
  /** `/?token=…`: the printed URL, redirected to the page's home under `/t/<token>/`. */
  | { kind: 'enter' }
  /** `/rpc?token=…` or `/t/<token>/rpc`: the WebSocket. */
  | { kind: 'rpc' }
  /** `/v1/…`: the OpenAI-compatible API; `path` starts with /v1/. */
  | { kind: 'api'; path: string }
  /** `/t/<token><path>`: a file of the page; `path` is the raw rest (`''` for `/t/<token>` itself). */
  | { kind: 'page'; path: string };

/** A refusal of an API path (`api`) is answered in OpenAI's error shape, the rest as text. */
export type AccessDecision = { ok: true; route: Route } | { ok: false; status: 401 | 403; message: string; api: boolean };

const UNAUTHORIZED: AccessDecision = { ok: false, status: 401, message: UNAUTHORIZED_MESSAGE, api: false };
const API_UNAUTHORIZED: AccessDecision = { ok: false, status: 401, message: API_UNAUTHORIZED_MESSAGE, api: true };

/** Host first, then Origin, then the token: the order the server answers in. */
export function checkAccess(req: AccessRequest, expected: { port: number; token: string }): AccessDecision {
  const rawPath = requestPath(req.url);
  const prefixed = splitTokenPath(rawPath);
  const api = !req.upgrade && (prefixed?.rest ?? rawPath).startsWith(API_PREFIX);
  if (!isAllowedHost(req.host, expected.port)) {
    return { ok: false, status: 403, message: 'Berth only answers requests addressed to 127.0.0.1 or localhost on its own port.\n', api };
  }
  if (!isAllowedOrigin(req.origin, expected.port, req.upgrade ? 'upgrade' : 'plain')) {
    return { ok: false, status: 403, message: 'Berth only answers its own pages: this request came from another origin.\n', api };
  }
  if (prefixed !== null) {
    if (!tokensEqual(expected.token, prefixed.token)) return api ? API_UNAUTHORIZED : UNAUTHORIZED;
    if (api) return { ok: true, route: { kind: 'api', path: prefixed.rest } };
    return { ok: true, route: prefixed.rest === RPC_PATH ? { kind: 'rpc' } : { kind: 'page', path: prefixed.rest } };
  }
  if (api) {
    // API clients send the token the way they send an OpenAI key.
    if (!tokensEqual(expected.token, bearerToken(req.authorization))) return API_UNAUTHORIZED;
    return { ok: true, route: { kind: 'api', path: rawPath } };
  }
  // The query token counts only where a URL is typed or handed to a non-browser client.
  if (rawPath !== '/' && rawPath !== RPC_PATH) return UNAUTHORIZED;
  if (!tokensEqual(expected.token, queryToken(req.url))) return UNAUTHORIZED;
  return { ok: true, route: rawPath === '/' ? { kind: 'enter' } : { kind: 'rpc' } };
}

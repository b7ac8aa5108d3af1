/**
 * Who may use a port forward: each request Berth's forward listener gets is judged here before a
 * byte reaches the sandbox. Only this computer (a loopback peer), only the Host Berth handed out
 * (a page on another name that resolves to 127.0.0.1, DNS rebinding, is refused), and only the
 * user's own browser: the first URL carries a secret, which becomes an HttpOnly SameSite=Strict
 * cookie for that origin; every request after it carries the cookie. No I/O.
 */
import { timingSafeEqual } from 'node:crypto';

/** The query parameter of the URL Berth hands out ("Open in browser", "Copy URL"). */
export const SECRET_PARAM = 'berth_secret';
/** Cookies ignore ports: every forward on 127.0.0.1 sees every forward's cookie, so each has its own name. */
export const COOKIE_PREFIX = 'berth_forward_';

export function cookieName(hostPort: number): string {
  return `${COOKIE_PREFIX}${hostPort}`;
}

export interface GateRequest {
  remoteAddress: string | undefined;
  host: string | undefined;
  /** The Origin header, if any (browsers send it on WebSocket handshakes, cross-origin requests and unsafe methods). */
  origin: string | undefined;
  /** Sec-Fetch-Site and Sec-Fetch-Mode, which browsers send to 127.0.0.1 (a trustworthy origin). */
  fetchSite: string | undefined;
  fetchMode: string | undefined;
  url: string;
  cookie: string | undefined;
  /** A WebSocket (or other) upgrade: it cannot be redirected, so the secret in its URL is taken as is. */
  upgrade: boolean;
}

export type GateVerdict =
  | { kind: 'refuse'; status: number; reason: string }
  /** The secret was right: set the cookie and send the browser to the same URL without it. */
  | { kind: 'grant'; location: string; setCookie: string }
  /** Let it through, with this URL and Cookie header (Berth's own cookies taken out: the sandbox never sees a secret). */
  | { kind: 'pass'; url: string; cookie: string | null };

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The request's cookies other than Berth's forward cookies, and the value of this forward's own. */
function splitCookies(header: string | undefined, own: string): { rest: string | null; mine: string | null } {
  let mine: string | null = null;
  const rest: string[] = [];
  for (const part of (header ?? '').split(';')) {
    const pair = part.trim();
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (name === own) mine = pair.slice(eq + 1);
    else if (!name.startsWith(COOKIE_PREFIX)) rest.push(pair);
  }
  return { rest: rest.length ? rest.join('; ') : null, mine };
}

export function judgeForwardRequest(req: GateRequest, forward: { hostPort: number; secret: string }): GateVerdict {
  if (!isLoopback(req.remoteAddress)) return { kind: 'refuse', status: 403, reason: 'Only this computer may use a Berth port forward.' };
  const hosts = [`127.0.0.1:${forward.hostPort}`, `localhost:${forward.hostPort}`];
  const host = (req.host ?? '').toLowerCase();
  if (!hosts.includes(host)) return { kind: 'refuse', status: 421, reason: `This port forward answers to ${hosts[0]} only.` };
  // Cookies ignore ports, and so does SameSite: a page another forward serves (another chat's
  // app on 127.0.0.1) is "same-site" and its requests here would carry this forward's cookie.
  // So requests from any other origin are refused, save the user following a link (a navigation).
  const foreignOrigin = req.origin !== undefined && !hosts.some((h) => req.origin?.toLowerCase() === `http://${h}`);
  const foreignFetch = (req.fetchSite === 'same-site' || req.fetchSite === 'cross-site') && req.fetchMode !== 'navigate';
  if (foreignOrigin || foreignFetch || (req.upgrade && req.fetchSite !== undefined && req.fetchSite !== 'same-origin')) {
    return { kind: 'refuse', status: 403, reason: 'A page from another site (or another port) may not use this port forward.' };
  }
  if (!req.url.startsWith('/')) return { kind: 'refuse', status: 400, reason: 'The request names no path.' };
  const url = new URL(req.url, `http://${hosts[0]}`);
  const given = url.searchParams.get(SECRET_PARAM);
  url.searchParams.delete(SECRET_PARAM);
  const clean = url.search === '' ? url.pathname : `${url.pathname}${url.search}`;
  const name = cookieName(forward.hostPort);
  const cookies = splitCookies(req.cookie, name);
  if (given !== null && sameSecret(given, forward.secret)) {
    if (req.upgrade) return { kind: 'pass', url: clean, cookie: cookies.rest };
    return { kind: 'grant', location: clean, setCookie: `${name}=${forward.secret}; Path=/; HttpOnly; SameSite=Strict` };
  }
  if (cookies.mine !== null && sameSecret(cookies.mine, forward.secret)) return { kind: 'pass', url: req.url, cookie: cookies.rest };
  return { kind: 'refuse', status: 403, reason: 'Open this port from Berth (Open in browser or Copy URL): the link it gives carries the key to it.' };
}

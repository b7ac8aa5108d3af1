/**
 * The desktop shell's security decisions, pure: which URLs are the app's own (trusted IPC
 * senders, allowed navigation), which links may open in the user's browser, the Content
 * Security Policy, and which file a request to the app's own scheme may read. No Electron,
 * no I/O: index.ts and window.ts apply these, the tests check them.
 *
 * The app's pages are served from a privileged custom scheme (`berth://app/…`) rather than
 * `file://` (Electron security checklist: "avoid file://"): every file:// page shares one
 * origin with the whole disk, while `berth://app` is an origin of its own that can only read
 * the built renderer folder.
 */
import path from 'node:path';

export const APP_SCHEME = 'berth';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

export interface UrlPolicy {
  /** The renderer's dev server origin (`http://localhost:5173`) when running unpackaged with one. */
  devServerOrigin: string | null;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * The dev server origin from `BERTH_DEV_SERVER_URL`, or null: only plain http(s) on this
 * computer's loopback, without credentials. Anything else is ignored, never trusted.
 */
export function parseDevServerUrl(value: string | undefined): string | null {
  if (!value) return null;
  const url = parse(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  if (url.username || url.password || !LOOPBACK_HOSTS.has(url.hostname)) return null;
  return url.origin;
}

/** The URL the main window loads. */
export function appStartUrl(policy: UrlPolicy): string {
  return policy.devServerOrigin ? `${policy.devServerOrigin}/` : APP_INDEX_URL;
}

/** A page of the app itself: `berth://app/…`, or the dev server's origin when there is one. */
export function isAppUrl(url: string, policy: UrlPolicy): boolean {
  const parsed = parse(url);
  if (!parsed || parsed.username || parsed.password) return false;
  // WHATWG gives non-special schemes an opaque ("null") origin, so compare scheme and host.
  if (parsed.protocol === `${APP_SCHEME}:`) return parsed.host.toLowerCase() === APP_HOST;
  if (policy.devServerOrigin === null) return false;
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === policy.devServerOrigin;
}

/** Whether an IPC message from a frame at this URL may reach the core. */
export function isTrustedSenderUrl(frameUrl: string, policy: UrlPolicy): boolean {
  return isAppUrl(frameUrl, policy);
}

/** Whether the window may navigate (or be redirected) to this URL: only within the app. */
export function isNavigationAllowed(targetUrl: string, policy: UrlPolicy): boolean {
  return isAppUrl(targetUrl, policy);
}

const MAX_EXTERNAL_URL = 2048;

/**
 * The link to hand to the user's browser, or null: only http(s) with a host and no
 * credentials (never file:, javascript:, custom schemes or smb shares the OS would open).
 */
export function externalUrlToOpen(url: string): string | null {
  if (url.length > MAX_EXTERNAL_URL) return null;
  const parsed = parse(url);
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return null;
  if (!parsed.hostname || parsed.username || parsed.password) return null;
  return parsed.href;
}

/**
 * The Content Security Policy of every app page. With a dev server, Vite's inline React
 * refresh preamble and its HMR WebSocket are allowed too (unpackaged runs only).
 */
export function contentSecurityPolicy(policy: UrlPolicy): string {
  const dev = policy.devServerOrigin;
  const devSocket = dev ? dev.replace(/^http/, 'ws') : null;
  return [
    "default-src 'self'",
    dev ? "script-src 'self' 'unsafe-inline'" : "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    devSocket ? `connect-src 'self' ${devSocket}` : "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The file a `berth://app/…` request reads, or null: inside `rootDir` only (no `..`, no
 * encoded separators, no NUL), `/` meaning index.html.
 */
export function resolveAppAsset(rootDir: string, requestUrl: string): string | null {
  const url = parse(requestUrl);
  if (!url || url.protocol !== `${APP_SCHEME}:` || url.host.toLowerCase() !== APP_HOST || url.username || url.password) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return null;
  if (pathname === '/' || pathname === '') pathname = '/index.html';
  const root = path.resolve(rootDir);
  const file = path.resolve(root, `.${pathname}`);
  const relative = path.relative(root, file);
  if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return file;
}

/** The Content-Type an app file is served with (module scripts need an exact one). */
export { contentTypeFor } from '../policy/contentTypes.js';

/**
 * Response headers with the app's CSP (any CSP the response carried is replaced, whatever
 * its case) and `nosniff`: what `session.webRequest.onHeadersReceived` hands back.
 */
export function withSecurityHeaders(headers: Record<string, string[]> | undefined, csp: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'content-security-policy' || lower === 'x-content-type-options') continue;
    out[name] = value;
  }
  out['Content-Security-Policy'] = [csp];
  out['X-Content-Type-Options'] = ['nosniff'];
  return out;
}

/**
 * Whether the session grants a permission: none, ever, except writing plain text to the
 * clipboard from the app's own page (copying a terminal selection). Reading the clipboard,
 * camera, microphone, notifications, devices, geolocation… are all refused.
 */
export function isPermissionGranted(permission: string, requestingUrl: string, policy: UrlPolicy): boolean {
  return permission === 'clipboard-sanitized-write' && isAppUrl(requestingUrl, policy);
}

/**
 * The Electron security checklist applied: the main window's web preferences, the session's
 * permission and header handling, the guard every webContents gets (navigation, new windows,
 * webviews), and the `berth://app` scheme that serves the built renderer. Electron objects are
 * passed in; the decisions themselves are in securityPolicy.ts.
 */
import fs from 'node:fs/promises';
import type { BrowserWindowConstructorOptions, CustomScheme, Protocol, Session, WebContents } from 'electron';
import {
  APP_SCHEME,
  contentTypeFor,
  externalUrlToOpen,
  isNavigationAllowed,
  isPermissionGranted,
  resolveAppAsset,
  withSecurityHeaders,
  type UrlPolicy,
} from './securityPolicy.js';

/** Registered before the app is ready: a standard, secure origin of its own, fetch allowed. */
export const APP_SCHEME_PRIVILEGES: CustomScheme[] = [
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
];

export function mainWindowOptions(options: { preload: string; devTools: boolean }): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Berth',
    backgroundColor: '#101820',
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: options.devTools,
    },
  };
}

type GuardedContents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/**
 * For every webContents the app creates (app 'web-contents-created'): navigation and
 * redirects stay inside the app, no webview attaches, no window opens; an http(s) link the
 * page tries to open goes to the user's browser instead.
 */
export function guardWebContents(contents: GuardedContents, policy: UrlPolicy, openExternal: (url: string) => Promise<void>): void {
  const keepInApp = (event: { url: string; preventDefault(): void }) => {
    if (!isNavigationAllowed(event.url, policy)) event.preventDefault();
  };
  contents.on('will-navigate', keepInApp);
  contents.on('will-frame-navigate', keepInApp);
  contents.on('will-redirect', keepInApp);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalUrlToOpen(url);
    if (external) openExternal(external).catch(() => undefined);
    return { action: 'deny' };
  });
}

type HardenedSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'> & {
  webRequest: Pick<Session['webRequest'], 'onHeadersReceived'>;
};

/**
 * No permission is granted (camera, notifications, clipboard reads, devices…) except writing
 * text to the clipboard from the app's own page; every response gets the CSP.
 */
export function hardenSession(session: HardenedSession, csp: string, policy: UrlPolicy): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(isPermissionGranted(permission, details.requestingUrl, policy));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionGranted(permission, requestingOrigin, policy));
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withSecurityHeaders(details.responseHeaders, csp) });
  });
}

/** Answers one `berth://app/…` request from the built renderer folder. */
export async function serveAppRequest(rootDir: string, request: { url: string; method: string }, csp: string): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405 });
  const file = resolveAppAsset(rootDir, request.url);
  let body: Buffer;
  try {
    if (!file) throw new Error('outside the app');
    body = await fs.readFile(file);
  } catch {
    return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
    status: 200,
    headers: {
      'Content-Type': contentTypeFor(file),
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    },
  });
}

/** Serves the built renderer (`dist/renderer`) on `berth://app/`; nothing else of the disk. */
export function serveApp(protocol: Pick<Protocol, 'handle'>, rootDir: string, csp: string): void {
  protocol.handle(APP_SCHEME, (request) => serveAppRequest(rootDir, request, csp));
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contentSecurityPolicy } from './securityPolicy.js';
import { APP_SCHEME_PRIVILEGES, guardWebContents, hardenSession, mainWindowOptions, serveApp, serveAppRequest } from './window.js';

// Test doubles of Electron objects (its binary cannot run here): they record what the glue
// registers so each handler can be called as Electron would.
type Listener = (...args: unknown[]) => void;

function fakeContents() {
  const listeners = new Map<string, Listener[]>();
  let openHandler: ((details: { url: string }) => { action: string }) | null = null;
  return {
    on(event: string, listener: Listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return this;
    },
    setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
      openHandler = handler;
    },
    emit(event: string, ...args: unknown[]) {
      for (const l of listeners.get(event) ?? []) l(...args);
    },
    openWindow(url: string) {
      if (!openHandler) throw new Error('no window open handler');
      return openHandler({ url });
    },
    events: () => [...listeners.keys()].sort(),
  };
}

const navEvent = (url: string) => ({ url, preventDefault: vi.fn() });
const policy = { devServerOrigin: null };

function guarded() {
  const contents = fakeContents();
  const openExternal = vi.fn(async (_url: string) => undefined);
  guardWebContents(contents as never, policy, openExternal);
  return { contents, openExternal };
}

describe('mainWindowOptions', () => {
  it('follows the security checklist', () => {
    const options = mainWindowOptions({ preload: '/app/dist/electron/preload/index.cjs', devTools: false });
    expect(options.webPreferences).toMatchObject({
      preload: '/app/dist/electron/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      devTools: false,
    });
    expect(options.webPreferences).not.toHaveProperty('enableBlinkFeatures');
    expect(options.show).toBe(false);
  });

  it('registers berth:// as a standard, secure scheme of its own', () => {
    expect(APP_SCHEME_PRIVILEGES).toEqual([{ scheme: 'berth', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  });
});

describe('guardWebContents', () => {
  it('listens for navigation, redirects and webviews', () => {
    expect(guarded().contents.events()).toEqual(['will-attach-webview', 'will-frame-navigate', 'will-navigate', 'will-redirect']);
  });

  it.each(['will-navigate', 'will-frame-navigate', 'will-redirect'])('%s: stays inside the app', (event) => {
    const { contents, openExternal } = guarded();
    const away = navEvent('https://evil.example/');
    contents.emit(event, away);
    expect(away.preventDefault).toHaveBeenCalledOnce();
    const file = navEvent('file:///etc/passwd');
    contents.emit(event, file);
    expect(file.preventDefault).toHaveBeenCalledOnce();
    const within = navEvent('berth://app/index.html#/settings');
    contents.emit(event, within);
    expect(within.preventDefault).not.toHaveBeenCalled();
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('never attaches a webview', () => {
    const { contents } = guarded();
    const event = { preventDefault: vi.fn() };
    contents.emit('will-attach-webview', event, {}, { src: 'berth://app/index.html' });
    expect(event.preventDefault).toHaveBeenCalledOnce();
  });

  it('denies every new window and opens http(s) links in the browser', () => {
    const { contents, openExternal } = guarded();
    expect(contents.openWindow('https://docs.docker.com/')).toEqual({ action: 'deny' });
    expect(openExternal).toHaveBeenCalledWith('https://docs.docker.com/');
  });

  it.each(['file:///etc/passwd', 'javascript:alert(1)', 'berth://app/index.html', 'smb://host/share', 'about:blank'])(
    'denies a window for %s and opens nothing',
    (url) => {
      const { contents, openExternal } = guarded();
      expect(contents.openWindow(url)).toEqual({ action: 'deny' });
      expect(openExternal).not.toHaveBeenCalled();
    },
  );

  it('survives the browser failing to open a link', async () => {
    const contents = fakeContents();
    const openExternal = vi.fn(async () => {
      throw new Error('no browser');
    });
    guardWebContents(contents as never, policy, openExternal);
    expect(contents.openWindow('https://example.com/')).toEqual({ action: 'deny' });
    await Promise.resolve();
  });
});

describe('hardenSession', () => {
  type RequestHandler = (wc: unknown, permission: string, cb: (granted: boolean) => void, details: { requestingUrl: string }) => void;
  type CheckHandler = (...args: unknown[]) => boolean;
  type HeadersHandler = (details: { responseHeaders?: Record<string, string[]> }, cb: (r: unknown) => void) => void;

  function fakeSession() {
    const handlers: { request?: RequestHandler; check?: CheckHandler; device?: CheckHandler; headers?: HeadersHandler } = {};
    const session = {
      setPermissionRequestHandler: (h: RequestHandler) => (handlers.request = h),
      setPermissionCheckHandler: (h: CheckHandler) => (handlers.check = h),
      setDevicePermissionHandler: (h: CheckHandler) => (handlers.device = h),
      webRequest: { onHeadersReceived: (h: HeadersHandler) => (handlers.headers = h) },
    };
    return { session, handlers };
  }

  it('grants no permission, from the app or anywhere else', () => {
    const { session, handlers: s } = fakeSession();
    hardenSession(session as never, 'csp', policy);
    const permissions = ['media', 'notifications', 'clipboard-read', 'geolocation', 'openExternal', 'fileSystem', 'display-capture', 'unknown'];
    for (const permission of permissions) {
      for (const url of ['berth://app/index.html', 'https://evil.example/']) {
        const cb = vi.fn();
        s.request?.({}, permission, cb, { requestingUrl: url });
        expect(cb).toHaveBeenCalledExactlyOnceWith(false);
        expect(s.check?.({}, permission, new URL(url).protocol === 'berth:' ? 'berth://app' : 'https://evil.example', {})).toBe(false);
      }
    }
    expect(s.device?.({ deviceType: 'usb', origin: 'berth://app' })).toBe(false);
  });

  it('lets only the app page write text to the clipboard (copying from a terminal)', () => {
    const { session, handlers: s } = fakeSession();
    hardenSession(session as never, 'csp', policy);
    const granted = vi.fn();
    s.request?.({}, 'clipboard-sanitized-write', granted, { requestingUrl: 'berth://app/index.html' });
    expect(granted).toHaveBeenCalledWith(true);
    expect(s.check?.({}, 'clipboard-sanitized-write', 'berth://app', {})).toBe(true);
    const refused = vi.fn();
    s.request?.({}, 'clipboard-sanitized-write', refused, { requestingUrl: 'https://evil.example/' });
    expect(refused).toHaveBeenCalledWith(false);
    expect(s.check?.({}, 'clipboard-sanitized-write', 'https://evil.example', {})).toBe(false);
  });

  it('puts the CSP on every response', () => {
    const { session, handlers: s } = fakeSession();
    const csp = contentSecurityPolicy(policy);
    hardenSession(session as never, csp, policy);
    const cb = vi.fn();
    s.headers?.({ responseHeaders: { 'content-security-policy': ['default-src *'], 'Content-Type': ['text/html'] } }, cb);
    expect(cb).toHaveBeenCalledWith({
      responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [csp], 'X-Content-Type-Options': ['nosniff'] },
    });
  });
});

describe('serveApp', () => {
  let root: string;
  let outside: string;
  const csp = contentSecurityPolicy(policy);

  beforeAll(() => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'berth-serve-')));
    root = path.join(base, 'renderer');
    outside = path.join(base, 'secret.txt');
    fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
    fs.writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log(1)');
    fs.writeFileSync(outside, 'secret');
  });
  afterAll(() => fs.rmSync(path.dirname(root), { recursive: true, force: true }));

  it('serves index.html with the CSP and nosniff', async () => {
    const res = await serveAppRequest(root, { url: 'berth://app/', method: 'GET' }, csp);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(csp);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('<!doctype html>');
  });

  it('serves module scripts as JavaScript', async () => {
    const res = await serveAppRequest(root, { url: 'berth://app/assets/app.js', method: 'GET' }, csp);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await res.text()).toBe('console.log(1)');
  });

  it('answers HEAD without a body', async () => {
    const res = await serveAppRequest(root, { url: 'berth://app/index.html', method: 'HEAD' }, csp);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it.each([
    'berth://app/missing.js',
    'berth://app/../secret.txt',
    'berth://app/%2e%2e/secret.txt',
    'berth://app/assets/..%2f..%2fsecret.txt',
    'berth://app/assets',
    'berth://other/index.html',
  ])('answers 404 for %s and reads nothing outside', async (url) => {
    const res = await serveAppRequest(root, { url, method: 'GET' }, csp);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('secret');
  });

  it('answers 405 to anything but GET and HEAD', async () => {
    expect((await serveAppRequest(root, { url: 'berth://app/index.html', method: 'POST' }, csp)).status).toBe(405);
  });

  it('registers the handler on the berth scheme', async () => {
    const handle = vi.fn();
    serveApp({ handle } as never, root, csp);
    expect(handle).toHaveBeenCalledWith('berth', expect.any(Function));
    const handler = handle.mock.calls[0]?.[1] as (r: { url: string; method: string }) => Promise<Response>;
    expect((await handler({ url: 'berth://app/index.html', method: 'GET' })).status).toBe(200);
  });
});

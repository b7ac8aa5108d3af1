import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APP_INDEX_URL,
  appStartUrl,
  contentSecurityPolicy,
  contentTypeFor,
  externalUrlToOpen,
  isAppUrl,
  isNavigationAllowed,
  isPermissionGranted,
  isTrustedSenderUrl,
  parseDevServerUrl,
  resolveAppAsset,
  withSecurityHeaders,
} from './securityPolicy.js';

const packaged = { devServerOrigin: null };
const dev = { devServerOrigin: 'http://localhost:5173' };

describe('parseDevServerUrl', () => {
  it.each([
    ['http://localhost:5173', 'http://localhost:5173'],
    ['http://localhost:5173/some/page?x=1', 'http://localhost:5173'],
    ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000'],
    ['http://[::1]:5173', 'http://[::1]:5173'],
    ['https://localhost:5173', 'https://localhost:5173'],
  ])('accepts the loopback dev server %s', (value, origin) => {
    expect(parseDevServerUrl(value)).toBe(origin);
  });

  it.each([
    undefined,
    '',
    'not a url',
    'http://example.com:5173',
    'http://192.168.1.10:5173',
    'http://localhost.evil.example:5173',
    'http://user:pw@localhost:5173',
    'file:///home/me/index.html',
    'ws://localhost:5173',
    'berth://app/',
  ])('ignores %j', (value) => {
    expect(parseDevServerUrl(value)).toBeNull();
  });
});

describe('isAppUrl, isTrustedSenderUrl, isNavigationAllowed', () => {
  it.each([APP_INDEX_URL, 'berth://app/', 'berth://app/index.html#/chats/1', 'berth://app/index.html?x=1', 'BERTH://APP/index.html'])(
    'trusts the app page %s',
    (url) => {
      expect(isAppUrl(url, packaged)).toBe(true);
      expect(isTrustedSenderUrl(url, packaged)).toBe(true);
      expect(isNavigationAllowed(url, packaged)).toBe(true);
    },
  );

  it.each([
    'file:///work/main/dist/renderer/index.html',
    'file:///etc/passwd',
    'berth://evil/index.html',
    'berth://app.evil/index.html',
    'berth://app:8080/index.html',
    'berth://user:pw@app/index.html',
    'https://example.com/',
    'http://localhost:5173/',
    'about:blank',
    'data:text/html,<script>1</script>',
    'javascript:alert(1)',
    'devtools://devtools/bundled/inspector.html',
    '',
    'not a url',
  ])('does not trust %j without a dev server', (url) => {
    expect(isAppUrl(url, packaged)).toBe(false);
    expect(isTrustedSenderUrl(url, packaged)).toBe(false);
    expect(isNavigationAllowed(url, packaged)).toBe(false);
  });

  it('trusts exactly the dev server origin when there is one', () => {
    expect(isTrustedSenderUrl('http://localhost:5173/', dev)).toBe(true);
    expect(isTrustedSenderUrl('http://localhost:5173/src/main.tsx', dev)).toBe(true);
    expect(isTrustedSenderUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isTrustedSenderUrl('http://127.0.0.1:5173/', dev)).toBe(false);
    expect(isTrustedSenderUrl('https://localhost:5173/', dev)).toBe(false);
    expect(isTrustedSenderUrl('http://u:p@localhost:5173/', dev)).toBe(false);
    expect(isTrustedSenderUrl(APP_INDEX_URL, dev)).toBe(true);
  });

  it('starts at the app index, or the dev server', () => {
    expect(appStartUrl(packaged)).toBe('berth://app/index.html');
    expect(appStartUrl(dev)).toBe('http://localhost:5173/');
  });
});

describe('externalUrlToOpen', () => {
  it.each([
    ['https://docs.docker.com/engine/', 'https://docs.docker.com/engine/'],
    ['http://example.com', 'http://example.com/'],
    ['HTTPS://Example.COM/a b', 'https://example.com/a%20b'],
  ])('opens %s in the browser', (url, href) => {
    expect(externalUrlToOpen(url)).toBe(href);
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,hi',
    'smb://server/share',
    'berth://app/index.html',
    'vscode://file/etc/passwd',
    'mailto:someone@example.com',
    'https://user:pw@example.com/',
    'http://',
    'not a url',
    `https://example.com/${'a'.repeat(3000)}`,
  ])('never opens %j', (url) => {
    expect(externalUrlToOpen(url)).toBeNull();
  });
});

describe('contentSecurityPolicy', () => {
  const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0], d] as const));

  it('is strict for the packaged app', () => {
    const d = directives(contentSecurityPolicy(packaged));
    expect(d.get('default-src')).toBe("default-src 'self'");
    expect(d.get('script-src')).toBe("script-src 'self'");
    expect(d.get('style-src')).toBe("style-src 'self' 'unsafe-inline'");
    expect(d.get('img-src')).toBe("img-src 'self' data:");
    expect(d.get('connect-src')).toBe("connect-src 'self'");
    expect(d.get('object-src')).toBe("object-src 'none'");
    expect(d.get('base-uri')).toBe("base-uri 'none'");
    expect(d.get('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(d.get('form-action')).toBe("form-action 'none'");
    expect(contentSecurityPolicy(packaged)).not.toMatch(/unsafe-eval|\*|ws:/);
  });

  it('lets only the dev server add its inline preamble and HMR socket', () => {
    const d = directives(contentSecurityPolicy(dev));
    expect(d.get('script-src')).toBe("script-src 'self' 'unsafe-inline'");
    expect(d.get('connect-src')).toBe("connect-src 'self' ws://localhost:5173");
    expect(contentSecurityPolicy(dev)).not.toMatch(/unsafe-eval/);
  });
});

describe('withSecurityHeaders', () => {
  it('replaces any CSP the response carried, whatever its case, and adds nosniff', () => {
    const out = withSecurityHeaders({ 'content-security-policy': ["default-src *"], 'Content-Type': ['text/html'], 'x-content-type-options': ['x'] }, "default-src 'self'");
    expect(out).toEqual({
      'Content-Type': ['text/html'],
      'Content-Security-Policy': ["default-src 'self'"],
      'X-Content-Type-Options': ['nosniff'],
    });
  });

  it('works without headers', () => {
    expect(withSecurityHeaders(undefined, 'x')).toEqual({ 'Content-Security-Policy': ['x'], 'X-Content-Type-Options': ['nosniff'] });
  });
});

describe('resolveAppAsset', () => {
  const root = '/opt/berth/dist/renderer';

  it.each([
    ['berth://app/', 'index.html'],
    ['berth://app/index.html', 'index.html'],
    ['berth://app/index.html?v=1#/chat', 'index.html'],
    ['berth://app/assets/index-abc.js', 'assets/index-abc.js'],
    ['berth://app/assets/a%20b.css', 'assets/a b.css'],
  ])('serves %s from the renderer folder', (url, relative) => {
    expect(resolveAppAsset(root, url)).toBe(path.join(root, relative));
  });

  it.each([
    'berth://app/../../../etc/passwd',
    'berth://app/%2e%2e/%2e%2e/etc/passwd',
    'berth://app/assets/..%2f..%2f..%2fetc%2fpasswd',
    'berth://app/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc/passwd',
  ])('keeps %j inside the renderer folder', (url) => {
    const file = resolveAppAsset(root, url);
    if (file !== null) expect(path.relative(root, file).startsWith('..')).toBe(false);
    expect(file).not.toBe('/etc/passwd');
  });

  it.each([
    'berth://app/..%5c..%5cetc%5cpasswd',
    'berth://app/%00index.html',
    'berth://app/%E0%A4%A',
    'berth://evil/index.html',
    'berth://user@app/index.html',
    'file:///etc/passwd',
    'https://app/index.html',
    'not a url',
  ])('refuses %j', (url) => {
    expect(resolveAppAsset(root, url)).toBeNull();
  });
});

describe('contentTypeFor', () => {
  it.each([
    ['index.html', 'text/html; charset=utf-8'],
    ['assets/app.JS', 'text/javascript; charset=utf-8'],
    ['assets/app.css', 'text/css; charset=utf-8'],
    ['icon.svg', 'image/svg+xml'],
    ['font.woff2', 'font/woff2'],
    ['blob.bin', 'application/octet-stream'],
  ])('%s is %s', (file, type) => {
    expect(contentTypeFor(file)).toBe(type);
  });
});

describe('isPermissionGranted', () => {
  it('grants only clipboard writes, and only to the app', () => {
    expect(isPermissionGranted('clipboard-sanitized-write', 'berth://app/index.html', packaged)).toBe(true);
    expect(isPermissionGranted('clipboard-sanitized-write', 'berth://app', packaged)).toBe(true);
    expect(isPermissionGranted('clipboard-sanitized-write', 'http://localhost:5173', dev)).toBe(true);
    expect(isPermissionGranted('clipboard-sanitized-write', 'http://localhost:5173', packaged)).toBe(false);
    expect(isPermissionGranted('clipboard-sanitized-write', 'https://evil.example', packaged)).toBe(false);
    expect(isPermissionGranted('clipboard-sanitized-write', 'file:///', packaged)).toBe(false);
  });

  it.each(['clipboard-read', 'media', 'notifications', 'geolocation', 'openExternal', 'fileSystem', 'hid', 'usb', 'serial', 'unknown', ''])(
    'never grants %j',
    (permission) => {
      expect(isPermissionGranted(permission, 'berth://app/index.html', packaged)).toBe(false);
    },
  );
});

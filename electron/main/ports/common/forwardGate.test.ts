import { describe, expect, it } from 'vitest';
import { cookieName, isLoopback, judgeForwardRequest, type GateRequest } from './forwardGate.js';

const forward = { hostPort: 41234, secret: 's3cret-s3cret' };
const base: GateRequest = { remoteAddress: '127.0.0.1', host: '127.0.0.1:41234', origin: undefined, fetchSite: undefined, fetchMode: undefined, url: '/', cookie: undefined, upgrade: false };
const withCookie = (extra: Partial<GateRequest> = {}): GateRequest => ({ ...base, cookie: `${cookieName(41234)}=${forward.secret}`, ...extra });

describe('judgeForwardRequest', () => {
  it('turns the secret into a cookie for that origin and sends the browser to the same URL without it', () => {
    expect(judgeForwardRequest({ ...base, url: '/app/?x=1&berth_secret=s3cret-s3cret' }, forward)).toEqual({
      kind: 'grant',
      location: '/app/?x=1',
      setCookie: 'berth_forward_41234=s3cret-s3cret; Path=/; HttpOnly; SameSite=Strict',
    });
  });

  it('lets a request with the cookie through, without Berth’s cookies (this forward’s or another’s)', () => {
    expect(judgeForwardRequest(withCookie({ url: '/a?b', cookie: `theme=dark; ${cookieName(41234)}=${forward.secret}; berth_forward_5=x` }), forward)).toEqual({
      kind: 'pass',
      url: '/a?b',
      cookie: 'theme=dark',
    });
  });

  it('refuses a request with neither, a wrong secret or another forward’s cookie', () => {
    expect(judgeForwardRequest(base, forward)).toMatchObject({ kind: 'refuse', status: 403 });
    expect(judgeForwardRequest({ ...base, url: '/?berth_secret=guess' }, forward)).toMatchObject({ kind: 'refuse', status: 403 });
    expect(judgeForwardRequest({ ...base, cookie: `berth_forward_5=${forward.secret}` }, forward)).toMatchObject({ kind: 'refuse', status: 403 });
  });

  it('refuses another Host header (DNS rebinding), even with the cookie', () => {
    for (const host of ['evil.example:41234', '127.0.0.1:80', '127.0.0.1', undefined]) {
      expect(judgeForwardRequest(withCookie({ host }), forward)).toMatchObject({ kind: 'refuse', status: 421 });
    }
    expect(judgeForwardRequest(withCookie({ host: 'localhost:41234' }), forward).kind).toBe('pass');
  });

  it('refuses a peer that is not this computer', () => {
    expect(judgeForwardRequest(withCookie({ remoteAddress: '192.168.1.20' }), forward)).toMatchObject({ kind: 'refuse', status: 403 });
    expect(judgeForwardRequest(withCookie({ remoteAddress: '::ffff:127.0.0.1' }), forward).kind).toBe('pass');
  });

  it('takes a WebSocket only from its own origin, and the secret in its URL as is', () => {
    expect(judgeForwardRequest(withCookie({ upgrade: true, origin: 'http://evil.example' }), forward)).toMatchObject({ kind: 'refuse', status: 403 });
    expect(judgeForwardRequest(withCookie({ upgrade: true, origin: 'http://127.0.0.1:41234' }), forward).kind).toBe('pass');
    expect(judgeForwardRequest({ ...base, upgrade: true, url: '/ws?berth_secret=s3cret-s3cret' }, forward)).toEqual({ kind: 'pass', url: '/ws', cookie: null });
  });
});

describe('requests from other pages', () => {
  it('refuses another origin’s fetch, form post or script, another forward’s page included (same site: ports do not count)', () => {
    expect(judgeForwardRequest(withCookie({ origin: 'http://127.0.0.1:5000' }), forward)).toMatchObject({ kind: 'refuse', status: 403 });
    expect(judgeForwardRequest(withCookie({ fetchSite: 'same-site', fetchMode: 'no-cors' }), forward)).toMatchObject({ kind: 'refuse', status: 403 });
    expect(judgeForwardRequest(withCookie({ fetchSite: 'cross-site', fetchMode: 'cors' }), forward)).toMatchObject({ kind: 'refuse', status: 403 });
    expect(judgeForwardRequest(withCookie({ upgrade: true, fetchSite: 'same-site', fetchMode: 'websocket' }), forward)).toMatchObject({ kind: 'refuse', status: 403 });
  });

  it('lets the page’s own requests through, and the user following a link to it', () => {
    expect(judgeForwardRequest(withCookie({ origin: 'http://127.0.0.1:41234', fetchSite: 'same-origin', fetchMode: 'cors' }), forward).kind).toBe('pass');
    expect(judgeForwardRequest(withCookie({ fetchSite: 'same-site', fetchMode: 'navigate' }), forward).kind).toBe('pass');
    expect(judgeForwardRequest(withCookie({ fetchSite: 'none', fetchMode: 'navigate' }), forward).kind).toBe('pass');
    expect(judgeForwardRequest(withCookie({ upgrade: true, fetchSite: 'same-origin', origin: 'http://127.0.0.1:41234' }), forward).kind).toBe('pass');
  });
});

describe('isLoopback', () => {
  it('knows loopback in both families and nothing else', () => {
    expect(['127.0.0.1', '127.8.9.1', '::1', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', '::', undefined, '1127.0.0.1'].some(isLoopback)).toBe(false);
  });
});

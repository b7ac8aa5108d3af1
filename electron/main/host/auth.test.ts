import { describe, expect, it } from 'vitest';
import {
  checkAccess,
  homePath,
  isAllowedHost,
  isAllowedOrigin,
  queryToken,
  requestPath,
  splitTokenPath,
  tokensEqual,
  type AccessRequest,
} from './auth.js';

const PORT = 5178;
const TOKEN = 'abcDEF123_-xyz';

describe('tokensEqual', () => {
  it('accepts only the exact token', () => {
    expect(tokensEqual(TOKEN, TOKEN)).toBe(true);
    expect(tokensEqual(TOKEN, `${TOKEN}x`)).toBe(false);
    expect(tokensEqual(TOKEN, TOKEN.slice(0, -1))).toBe(false);
    expect(tokensEqual(TOKEN, TOKEN.toUpperCase())).toBe(false);
    expect(tokensEqual(TOKEN, '')).toBe(false);
    expect(tokensEqual(TOKEN, null)).toBe(false);
    expect(tokensEqual(TOKEN, undefined)).toBe(false);
  });
  it('never accepts anything when the expected token is empty', () => {
    expect(tokensEqual('', '')).toBe(false);
  });
});

describe('Host', () => {
  it('allows exactly 127.0.0.1:<port> and localhost:<port>', () => {
    expect(isAllowedHost('127.0.0.1:5178', PORT)).toBe(true);
    expect(isAllowedHost('localhost:5178', PORT)).toBe(true);
  });
  it.each([
    undefined,
    '',
    '127.0.0.1',
    'localhost',
    '127.0.0.1:5179',
    'localhost:51780',
    'evil.example:5178',
    'localhost.evil.example:5178',
    '[::1]:5178',
    '0.0.0.0:5178',
    ' 127.0.0.1:5178',
    '127.0.0.1:5178.evil',
  ])('refuses %s', (host) => {
    expect(isAllowedHost(host, PORT)).toBe(false);
  });
});

describe('Origin', () => {
  it('allows exactly the two local origins on the port', () => {
    expect(isAllowedOrigin('http://127.0.0.1:5178', PORT, 'plain')).toBe(true);
    expect(isAllowedOrigin('http://localhost:5178', PORT, 'upgrade')).toBe(true);
  });
  it.each([
    'null',
    'http://127.0.0.1',
    'http://127.0.0.1:5179',
    'https://127.0.0.1:5178',
    'http://localhost:5178/',
    'http://evil.example',
    'http://localhost.evil.example:5178',
    'file://',
  ])('refuses %s', (origin) => {
    expect(isAllowedOrigin(origin, PORT, 'plain')).toBe(false);
    expect(isAllowedOrigin(origin, PORT, 'upgrade')).toBe(false);
  });
  it('allows an absent Origin on plain requests but not on an upgrade', () => {
    expect(isAllowedOrigin(undefined, PORT, 'plain')).toBe(true);
    expect(isAllowedOrigin(undefined, PORT, 'upgrade')).toBe(false);
  });
});

describe('token sources', () => {
  it('reads ?token= from the request target', () => {
    expect(queryToken('/?token=abc')).toBe('abc');
    expect(queryToken('/rpc?x=1&token=a%2Bb')).toBe('a+b');
    expect(queryToken('/')).toBeNull();
    expect(queryToken('/?tokens=abc')).toBeNull();
    expect(queryToken(undefined)).toBeNull();
  });
  it('takes the path of a request target without query or fragment', () => {
    expect(requestPath('/t/x/a.js?v=1#f')).toBe('/t/x/a.js');
    expect(requestPath('/')).toBe('/');
    expect(requestPath(undefined)).toBe('');
  });
  it('splits /t/<token><rest>, decoding the token and leaving the rest raw', () => {
    expect(splitTokenPath('/t/abc/')).toEqual({ token: 'abc', rest: '/' });
    expect(splitTokenPath('/t/abc/assets/a%20b.js')).toEqual({ token: 'abc', rest: '/assets/a%20b.js' });
    expect(splitTokenPath('/t/abc')).toEqual({ token: 'abc', rest: '' });
    expect(splitTokenPath('/t/a%2Bb/rpc')).toEqual({ token: 'a+b', rest: '/rpc' });
    expect(splitTokenPath('/t//')).toEqual({ token: '', rest: '/' });
    expect(splitTokenPath('/t/%E0%A4%A/')).toEqual({ token: null, rest: '/' });
    expect(splitTokenPath('/')).toBeNull();
    expect(splitTokenPath('/tx/abc/')).toBeNull();
    expect(splitTokenPath('//t/abc/')).toBeNull();
  });
  it('builds the home path with the token encoded', () => {
    expect(homePath(TOKEN)).toBe(`/t/${TOKEN}/`);
    expect(homePath('a+b/c')).toBe('/t/a%2Bb%2Fc/');
  });
});

describe('checkAccess', () => {
  const base: AccessRequest = {
    url: `/t/${TOKEN}/`,
    host: `127.0.0.1:${PORT}`,
    origin: undefined,
    upgrade: false,
  };
  const check = (over: Partial<AccessRequest>) => checkAccess({ ...base, ...over }, { port: PORT, token: TOKEN });

  it('lets the page and its assets in under /t/<token>/, handing on the rest of the path', () => {
    expect(check({})).toEqual({ ok: true, route: { kind: 'page', path: '/' } });
    expect(check({ url: `/t/${TOKEN}/assets/app.js?v=1` })).toEqual({ ok: true, route: { kind: 'page', path: '/assets/app.js' } });
    expect(check({ url: `/t/${TOKEN}` })).toEqual({ ok: true, route: { kind: 'page', path: '' } });
  });
  it('routes /?token= to the way in, and /rpc?token= and /t/<token>/rpc to the socket', () => {
    expect(check({ url: `/?token=${TOKEN}` })).toEqual({ ok: true, route: { kind: 'enter' } });
    expect(check({ url: `/rpc?token=${TOKEN}` })).toEqual({ ok: true, route: { kind: 'rpc' } });
    expect(check({ url: `/t/${TOKEN}/rpc` })).toEqual({ ok: true, route: { kind: 'rpc' } });
  });
  it('answers 401 without a token, or with a wrong one', () => {
    expect(check({ url: '/' })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: '/?token=nope' })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: '/rpc' })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: '/t/nope/' })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: `/t/${TOKEN}x/` })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: '/t/nope/rpc' })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: '/t//' })).toMatchObject({ ok: false, status: 401 });
    const denied = check({ url: '/' });
    expect(denied.ok === false && denied.message).toContain('Open the URL that `npm run web` printed');
  });
  it('takes the query token only on / and /rpc', () => {
    expect(check({ url: `/assets/app.js?token=${TOKEN}` })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: `/index.html?token=${TOKEN}` })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: `/t/nope/?token=${TOKEN}` })).toMatchObject({ ok: false, status: 401 });
  });
  it('answers 403 for a foreign Host or Origin even with the token', () => {
    expect(check({ host: `evil.example:${PORT}` })).toMatchObject({ ok: false, status: 403 });
    expect(check({ origin: 'http://evil.example' })).toMatchObject({ ok: false, status: 403 });
  });
  it('checks Host and Origin before the token', () => {
    expect(check({ host: 'evil.example', url: '/' })).toMatchObject({ ok: false, status: 403 });
    expect(check({ origin: 'http://evil.example', url: '/t/nope/' })).toMatchObject({ ok: false, status: 403 });
  });
  it('requires an allowed Origin on an upgrade', () => {
    expect(check({ upgrade: true, url: `/t/${TOKEN}/rpc` })).toMatchObject({ ok: false, status: 403 });
    expect(check({ upgrade: true, url: `/t/${TOKEN}/rpc`, origin: `http://localhost:${PORT}` })).toEqual({ ok: true, route: { kind: 'rpc' } });
    expect(check({ upgrade: true, url: `/rpc?token=${TOKEN}`, origin: `http://127.0.0.1:${PORT}` })).toEqual({ ok: true, route: { kind: 'rpc' } });
  });
});

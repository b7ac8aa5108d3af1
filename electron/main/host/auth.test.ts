import { describe, expect, it } from 'vitest';
import {
  checkAccess,
  cookieValue,
  isAllowedHost,
  isAllowedOrigin,
  queryToken,
  requestTokens,
  tokenCookie,
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
  it('reads the berth_token cookie among others', () => {
    expect(cookieValue('a=1; berth_token=xyz; b=2', 'berth_token')).toBe('xyz');
    expect(cookieValue('berth_token="xyz"', 'berth_token')).toBe('xyz');
    expect(cookieValue('xberth_token=xyz', 'berth_token')).toBeNull();
    expect(cookieValue(undefined, 'berth_token')).toBeNull();
    expect(cookieValue('garbage', 'berth_token')).toBeNull();
  });
  it('returns both', () => {
    expect(requestTokens('/?token=q', 'berth_token=c')).toEqual({ query: 'q', cookie: 'c' });
  });
  it('writes a strict, HttpOnly cookie for the whole site', () => {
    expect(tokenCookie(TOKEN)).toBe(`berth_token=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`);
  });
});

describe('checkAccess', () => {
  const base: AccessRequest = {
    method: 'GET',
    url: `/?token=${TOKEN}`,
    host: `127.0.0.1:${PORT}`,
    origin: undefined,
    cookie: undefined,
    upgrade: false,
  };
  const check = (over: Partial<AccessRequest>) => checkAccess({ ...base, ...over }, { port: PORT, token: TOKEN });

  it('lets a GET with the query token in and sets the cookie', () => {
    expect(check({})).toEqual({ ok: true, setCookie: true });
  });
  it('lets the cookie in without setting it again', () => {
    expect(check({ url: '/', cookie: `berth_token=${TOKEN}` })).toEqual({ ok: true, setCookie: false });
  });
  it('answers 401 without a token, or with a wrong one', () => {
    expect(check({ url: '/' })).toMatchObject({ ok: false, status: 401 });
    expect(check({ url: '/?token=nope', cookie: 'berth_token=nope' })).toMatchObject({ ok: false, status: 401 });
    const denied = check({ url: '/' });
    expect(denied.ok === false && denied.message).toContain('Open the URL that `npm run web` printed');
  });
  it('answers 403 for a foreign Host or Origin even with the token', () => {
    expect(check({ host: `evil.example:${PORT}` })).toMatchObject({ ok: false, status: 403 });
    expect(check({ origin: 'http://evil.example' })).toMatchObject({ ok: false, status: 403 });
  });
  it('checks Host before the token', () => {
    expect(check({ host: 'evil.example', url: '/' })).toMatchObject({ ok: false, status: 403 });
  });
  it('requires an allowed Origin on an upgrade and never sets a cookie there', () => {
    expect(check({ upgrade: true, url: `/rpc?token=${TOKEN}` })).toMatchObject({ ok: false, status: 403 });
    expect(check({ upgrade: true, url: `/rpc?token=${TOKEN}`, origin: `http://localhost:${PORT}` })).toEqual({ ok: true, setCookie: false });
  });
  it('does not set a cookie on a non-GET', () => {
    expect(check({ method: 'POST' })).toEqual({ ok: true, setCookie: false });
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../shared/contract.js';
import { createCore, type BerthCore } from '../core.js';
import type { EventListener } from '../events.js';
import { contentSecurityPolicy, createHostServer, staticTarget, type HostCore, type HostServer } from './server.js';
import { RpcClient, connect, request } from './testClient.js';
import { TERMINAL_FRAME_PROTOCOL } from '../../../shared/terminalFrame.js';

// A real core on a temp data dir; Docker kept out of reach (chats and profiles do not need it).
let tmp: string;
let core: BerthCore;
let host: HostServer;
let port: number;
let origin: string;
const listeners = new Set<EventListener>();

/** The real core, with a way for the test to emit an event through the host's own subscriptions. */
function observedCore(inner: BerthCore): HostCore {
  return {
    connectClient: () => inner.connectClient(),
    onEvent: (listener) => {
      listeners.add(listener);
      const sub = inner.onEvent(listener);
      return {
        dispose() {
          listeners.delete(listener);
          sub.dispose();
        },
      };
    },
  };
}
function emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
  for (const l of [...listeners]) l(event, payload);
}

const INDEX = '<!doctype html><title>Berth</title><div id="root"></div>';
const SECRET = 'top-secret-outside-the-build';

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-host-'));
  const staticDir = path.join(tmp, 'static');
  fs.mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(staticDir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log("berth");');
  fs.writeFileSync(path.join(tmp, 'secret.txt'), SECRET);
  fs.writeFileSync(path.join(tmp, 'package.json'), SECRET);
  fs.symlinkSync(path.join(tmp, 'secret.txt'), path.join(staticDir, 'leak.txt'));
  core = createCore({ dataDir: path.join(tmp, 'data'), env: { DOCKER_HOST: 'unix:///nonexistent.sock' }, reapIntervalMs: 0 });
  host = await createHostServer({ core: observedCore(core), port: 0, staticDir });
  port = host.port;
  origin = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await host?.close();
  await core?.dispose();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const rpcUrl = () => `ws://127.0.0.1:${port}/rpc?token=${host.token}`;

async function openClient(): Promise<RpcClient> {
  const c = await connect(rpcUrl(), { Origin: origin });
  if (!c.ok) throw new Error(`refused with ${c.status}`);
  return new RpcClient(c.ws);
}

describe('createHostServer', () => {
  it('listens on 127.0.0.1 and hands out the URL with a fresh token', () => {
    expect(port).toBeGreaterThan(0);
    expect(host.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(host.url).toBe(`http://127.0.0.1:${port}/?token=${host.token}`);
  });
});

describe('access over HTTP', () => {
  const home = () => `/t/${host.token}/`;

  it('answers 401 without a token, saying how to get in', async () => {
    const res = await request(port, '/');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('Open the URL that `npm run web` printed');
    expect(res.body).not.toContain(host.token);
  });

  it('redirects the printed URL (/?token=) to the page under /t/<token>/, uncached and without a referrer', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await request(port, `/?token=${host.token}`, {}, method);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(home());
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    // Without its slash the page's relative asset URLs would miss the prefix.
    const bare = await request(port, `/t/${host.token}`);
    expect(bare.status).toBe(302);
    expect(bare.headers.location).toBe(home());
  });

  it('serves the page and its assets under /t/<token>/', async () => {
    const page = await request(port, home(), { Origin: origin });
    expect(page.status).toBe(200);
    expect(page.body).toBe(INDEX);
    const asset = await request(port, `${home()}assets/app.js`);
    expect(asset.status).toBe(200);
    expect(asset.body).toBe('console.log("berth");');
  });

  it('answers 401 with a wrong token in the query or the path, and to a page path without the prefix', async () => {
    expect((await request(port, '/?token=wrong')).status).toBe(401);
    expect((await request(port, `/?token=${host.token.slice(0, -1)}`)).status).toBe(401);
    expect((await request(port, '/t/wrong/')).status).toBe(401);
    expect((await request(port, `/t/${host.token.slice(0, -1)}/`)).status).toBe(401);
    expect((await request(port, '/t/wrong/rpc')).status).toBe(401);
    expect((await request(port, '/t/wrong/assets/app.js')).status).toBe(401);
    expect((await request(port, '/assets/app.js')).status).toBe(401);
    // The query token opens only / and /rpc, not the files.
    expect((await request(port, `/assets/app.js?token=${host.token}`)).status).toBe(401);
    expect((await request(port, `/index.html?token=${host.token}`)).status).toBe(401);
  });

  it('ignores a berth_token cookie', async () => {
    expect((await request(port, '/', { Cookie: `berth_token=${host.token}` })).status).toBe(401);
    expect((await request(port, '/assets/app.js', { Cookie: `berth_token=${host.token}` })).status).toBe(401);
  });

  it('never sets a cookie', async () => {
    const answers = await Promise.all([
      request(port, '/'),
      request(port, `/?token=${host.token}`),
      request(port, `/?token=${host.token}`, { Origin: 'http://evil.example' }),
      request(port, home()),
      request(port, `${home()}assets/app.js`),
      request(port, `${home()}assets/nope.js`),
      request(port, `${home()}rpc`),
      request(port, '/t/wrong/'),
    ]);
    expect(answers.map((r) => r.status)).toEqual([401, 302, 403, 200, 200, 404, 426, 401]);
    for (const res of answers) expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('answers 403 to a foreign Origin, even with the token', async () => {
    expect((await request(port, `/?token=${host.token}`, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await request(port, home(), { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await request(port, home(), { Origin: `http://127.0.0.1:${port + 1}` })).status).toBe(403);
    // Origin is checked before the token.
    expect((await request(port, '/t/wrong/', { Origin: 'http://evil.example' })).status).toBe(403);
  });

  it('answers 403 to a foreign Host header (DNS rebinding), even with the token', async () => {
    expect((await request(port, home(), { Host: `evil.example:${port}` })).status).toBe(403);
    expect((await request(port, `/?token=${host.token}`, { Host: `evil.example:${port}` })).status).toBe(403);
    expect((await request(port, home(), { Host: '127.0.0.1' })).status).toBe(403);
    expect((await request(port, home(), { Host: `localhost:${port}` })).status).toBe(200);
  });

  it('serves only GET and HEAD', async () => {
    for (const p of [`/?token=${host.token}`, home()]) {
      const res = await request(port, p, {}, 'POST');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
  });
});

describe('static files', () => {
  /** A page path: `/t/<token>` + p. */
  const get = (p: string) => request(port, `/t/${host.token}${p}`);

  it('serves index.html for / with a strict CSP and nosniff', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.body).toBe(INDEX);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(
      `default-src 'self'; connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'`,
    );
    expect(res.headers['content-security-policy']).toBe(contentSecurityPolicy(port));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('serves assets with their content type, the CSP on every answer', async () => {
    const res = await get('/assets/app.js');
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(contentSecurityPolicy(port));
    const missing = await get('/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-security-policy']).toBe(contentSecurityPolicy(port));
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers HEAD without a body', async () => {
    const res = await request(port, `/t/${host.token}/assets/app.js`, {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String('console.log("berth");'.length));
    expect(res.body).toBe('');
  });

  it.each([
    '/../package.json',
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/..%5csecret.txt',
    '/assets\\..\\..\\secret.txt',
    '/index.html%00.js',
  ])('refuses traversal %s', async (p) => {
    const res = await get(p);
    expect(res.status).toBe(403);
    expect(res.body).not.toContain(SECRET);
  });

  it('refuses a link inside the build that points outside it', async () => {
    const res = await get('/leak.txt');
    expect(res.status).toBe(403);
    expect(res.body).not.toContain(SECRET);
  });

  it('refuses dotfiles and directories', async () => {
    expect((await get('/.env')).status).toBe(404);
    expect((await get('/assets')).status).toBe(404);
  });

  it('answers a plain GET of the socket address with 426', async () => {
    expect((await get('/rpc')).status).toBe(426);
    expect((await request(port, `/rpc?token=${host.token}`)).status).toBe(426);
  });

  it('answers 503 with the build command when there is no build', async () => {
    const empty = await createHostServer({ core: observedCore(core), port: 0, staticDir: path.join(tmp, 'no-build') });
    try {
      expect((await request(empty.port, `/?token=${empty.token}`)).status).toBe(302);
      const res = await request(empty.port, `/t/${empty.token}/`);
      expect(res.status).toBe(503);
      expect(res.body).toContain('npm run build:renderer');
      expect(res.headers['content-security-policy']).toBe(contentSecurityPolicy(empty.port));
      expect((await request(empty.port, `/t/${empty.token}/assets/app.js`)).status).toBe(404);
    } finally {
      await empty.close();
    }
  });
});

describe('staticTarget', () => {
  it('maps request paths to files under the build', () => {
    expect(staticTarget('/')).toEqual({ ok: true, relative: 'index.html' });
    expect(staticTarget('/?token=x')).toEqual({ ok: true, relative: 'index.html' });
    expect(staticTarget('/assets/a%20b.js#x')).toEqual({ ok: true, relative: 'assets/a b.js' });
    expect(staticTarget('/../x')).toMatchObject({ ok: false, status: 403 });
    expect(staticTarget('/%E0%A4%A')).toMatchObject({ ok: false, status: 400 });
    expect(staticTarget('http://evil/x')).toMatchObject({ ok: false, status: 400 });
  });
});

describe('access over WebSocket', () => {
  const pageRpcUrl = (token = host.token, h = '127.0.0.1') => `ws://${h}:${port}/t/${token}/rpc`;

  it('accepts /t/<token>/rpc from the page origins, and serves calls there', async () => {
    const c = await connect(pageRpcUrl(), { Origin: origin });
    if (!c.ok) throw new Error(`refused with ${c.status}`);
    const client = new RpcClient(c.ws);
    try {
      expect((await client.call('chats.list', {})).result).toHaveProperty('chats');
    } finally {
      await client.close();
    }
    const local = await connect(pageRpcUrl(host.token, 'localhost'), { Origin: `http://localhost:${port}` });
    expect(local.ok).toBe(true);
    if (local.ok) await new RpcClient(local.ws).close();
  });

  it('still accepts /rpc?token= for clients that are not a page', async () => {
    const c = await connect(rpcUrl(), { Origin: origin });
    expect(c.ok).toBe(true);
    if (c.ok) await new RpcClient(c.ws).close();
  });

  it('refuses an upgrade without a token, or with a wrong one, with 401', async () => {
    const c = await connect(`ws://127.0.0.1:${port}/rpc`, { Origin: origin });
    expect(c).toMatchObject({ ok: false, status: 401 });
    expect(c.ok === false && c.body).toContain('Open the URL that `npm run web` printed');
    expect(await connect(`ws://127.0.0.1:${port}/rpc?token=nope`, { Origin: origin })).toMatchObject({ ok: false, status: 401 });
    expect(await connect(pageRpcUrl('wrong'), { Origin: origin })).toMatchObject({ ok: false, status: 401 });
    expect(await connect(`ws://127.0.0.1:${port}/rpc`, { Origin: origin, Cookie: `berth_token=${host.token}` })).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a foreign Origin, and a missing one, with 403', async () => {
    for (const url of [rpcUrl(), pageRpcUrl()]) {
      expect(await connect(url, { Origin: 'http://evil.example' })).toMatchObject({ ok: false, status: 403 });
      expect(await connect(url, { Origin: `http://localhost:${port + 1}` })).toMatchObject({ ok: false, status: 403 });
      expect(await connect(url)).toMatchObject({ ok: false, status: 403 });
    }
  });

  it('refuses a foreign Host with 403', async () => {
    expect(await connect(rpcUrl(), { Origin: origin, Host: `evil.example:${port}` })).toMatchObject({ ok: false, status: 403 });
    expect(await connect(pageRpcUrl(), { Origin: origin, Host: `evil.example:${port}` })).toMatchObject({ ok: false, status: 403 });
  });

  it('refuses upgrades anywhere but the socket address', async () => {
    expect(await connect(`ws://127.0.0.1:${port}/t/${host.token}/other`, { Origin: origin })).toMatchObject({ ok: false, status: 404 });
    expect(await connect(`ws://127.0.0.1:${port}/t/${host.token}/`, { Origin: origin })).toMatchObject({ ok: false, status: 404 });
    expect(await connect(`ws://127.0.0.1:${port}/?token=${host.token}`, { Origin: origin })).toMatchObject({ ok: false, status: 404 });
    expect(await connect(`ws://127.0.0.1:${port}/other?token=${host.token}`, { Origin: origin })).toMatchObject({ ok: false, status: 401 });
  });
});

describe('JSON-RPC over /rpc', () => {
  it('refuses a page that tries to move a profile onto the host (local backend) or name host folders', async () => {
    const client = await openClient();
    try {
      const local = await client.call('profiles.create', { name: 'evil', backend: 'local' });
      expect(local.error).toMatchObject({ code: -32602, data: { code: 'invalid_request' } });
      expect(local.error?.message).toMatch(/cannot change backend/);
      const moved = await client.call('profiles.update', { name: 'default', settings: { backend: 'local' } });
      expect(moved.error?.message).toMatch(/cannot change backend/);
      const mounts = await client.call('profiles.create', { name: 'mounts', staticMounts: [{ source: '/srv', target: '/data' }] });
      expect(mounts.error?.message).toMatch(/staticMounts/);
      const listed = await client.call('profiles.list');
      const profiles = (listed.result as { profiles: { name: string; settings: { backend: string } }[] }).profiles;
      expect(profiles.map((p) => p.name)).not.toContain('evil');
      expect(profiles.find((p) => p.name === 'default')?.settings.backend).toBe('docker');
    } finally {
      await client.close();
    }
  });

  it('creates a chat and lists it', async () => {
    const client = await openClient();
    try {
      const created = await client.call('chats.create', { title: 'Over the wire' });
      expect(created.error).toBeUndefined();
      const chat = created.result as { id: string; title: string; profile: string };
      expect(chat).toMatchObject({ title: 'Over the wire', profile: 'default' });
      const listed = await client.call('chats.list', {});
      expect((listed.result as { chats: { id: string }[] }).chats.map((c) => c.id)).toContain(chat.id);
      const profiles = await client.call('profiles.list');
      expect((profiles.result as { profiles: { name: string }[] }).profiles.map((p) => p.name)).toContain('default');
    } finally {
      await client.close();
    }
  });

  it('answers a malformed message with an error and stays usable', async () => {
    const client = await openClient();
    try {
      expect((await client.sendRaw('{not json', null)).error?.code).toBe(-32700);
      expect((await client.sendRaw('[1,2]', null)).error?.code).toBe(-32600);
      expect((await client.sendRaw('{"jsonrpc":"2.0","id":99}', 99)).error?.code).toBe(-32600);
      client.ws.send(Buffer.from('{}'), { binary: true });
      expect((await client.waitFor(({ responses }) => responses.find((r) => r.error?.message.includes('binary')))).error?.code).toBe(-32600);
      const listed = await client.call('chats.list', {});
      expect(listed.result).toHaveProperty('chats');
    } finally {
      await client.close();
    }
  });

  it('answers an unknown method with -32601', async () => {
    const client = await openClient();
    try {
      expect((await client.call('chats.explode', {})).error?.code).toBe(-32601);
    } finally {
      await client.close();
    }
  });

  it('answers invalid params with -32602 and data.code invalid_request', async () => {
    const client = await openClient();
    try {
      const res = await client.call('chats.create', { title: 42 });
      expect(res.error).toMatchObject({ code: -32602, data: { code: 'invalid_request' } });
      expect(res.error?.message).toContain('chats.create');
      expect((await client.call('chats.list', { nope: true })).error?.code).toBe(-32602);
    } finally {
      await client.close();
    }
  });

  it('answers other BerthErrors with -32000 and their code and hint', async () => {
    const client = await openClient();
    try {
      const res = await client.call('tasks.register', { chatId: 'no-such-chat', taskId: 't1' });
      expect(res.error).toMatchObject({ code: -32000, data: { code: 'not_found' } });
      expect(typeof res.error?.data?.hint).toBe('string');
    } finally {
      await client.close();
    }
  });

  it('ignores notifications from the client', async () => {
    const client = await openClient();
    try {
      client.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'chats.list', params: {} }));
      client.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'no.such', params: {} }));
      const res = await client.call('profiles.list');
      expect(res.result).toHaveProperty('profiles');
      // Nothing answered the two notifications: the only response is the call's own.
      expect(await client.waitFor(({ responses }) => (responses.length === 1 ? responses[0] : undefined))).toBe(res);
    } finally {
      await client.close();
    }
  });

  it('sends every core event to every open socket as a notification, and unsubscribes on close', async () => {
    const before = listeners.size;
    const a = await openClient();
    const b = await openClient();
    expect(listeners.size).toBe(before + 2);
    emit('chats.changed', { chatId: 'marker-1' });
    emit('terminal.data', { terminalId: 't1', data: 'hello\r\n' });
    for (const client of [a, b]) {
      const n = await client.waitFor(({ notifications }) => notifications.find((m) => (m.params as { chatId?: string }).chatId === 'marker-1'));
      expect(n).toEqual({ jsonrpc: '2.0', method: 'chats.changed', params: { chatId: 'marker-1' } });
      expect(n).not.toHaveProperty('id');
      const t = await client.waitFor(({ notifications }) => notifications.find((m) => m.method === 'terminal.data'));
      expect(t.params).toEqual({ terminalId: 't1', data: 'hello\r\n' });
    }
    await a.close();
    await expect.poll(() => listeners.size).toBe(before + 1);
    emit('chats.changed', { chatId: 'marker-2' });
    await b.waitFor(({ notifications }) => notifications.find((m) => (m.params as { chatId?: string }).chatId === 'marker-2'));
    expect(a.notifications.some((m) => (m.params as { chatId?: string }).chatId === 'marker-2')).toBe(false);
    await b.close();
    await expect.poll(() => listeners.size).toBe(before);
  });
});

describe('terminal output frames', () => {
  it('sends terminal output as binary frames to a page that asks for them, the same payload, and every other event as text', async () => {
    const c = await connect(rpcUrl(), { Origin: origin }, [TERMINAL_FRAME_PROTOCOL]);
    if (!c.ok) throw new Error(`refused with ${c.status}`);
    expect(c.ws.protocol).toBe(TERMINAL_FRAME_PROTOCOL);
    const framed = new RpcClient(c.ws);
    const plain = await openClient();
    try {
      const data = 'héllo "漢字" 🙂\\\r\n\x1b[0m';
      emit('terminal.data', { terminalId: 't1', data });
      emit('chats.changed', { chatId: 'marker-frames' });
      for (const client of [framed, plain]) {
        const t = await client.waitFor(({ notifications }) => notifications.find((m) => m.method === 'terminal.data'));
        expect(t.params).toEqual({ terminalId: 't1', data });
        await client.waitFor(({ notifications }) => notifications.find((m) => (m.params as { chatId?: string }).chatId === 'marker-frames'));
      }
      expect(framed.binaryFrames).toBe(1);
      expect(plain.binaryFrames).toBe(0);
      // The page still speaks JSON-RPC text for its calls, and still may not send binary frames.
      expect((await framed.call('nope.nothing', {})).error?.code).toBe(-32601);
    } finally {
      await framed.close();
      await plain.close();
    }
  });
});

describe('limits and shutdown', () => {
  it('closes a socket that sends an oversized message, and keeps serving others', async () => {
    const small = await createHostServer({ core: observedCore(core), port: 0, staticDir: path.join(tmp, 'static'), maxMessageBytes: 1024 });
    try {
      const c = await connect(`ws://127.0.0.1:${small.port}/rpc?token=${small.token}`, { Origin: `http://127.0.0.1:${small.port}` });
      if (!c.ok) throw new Error('refused');
      const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)));
      c.ws.on('error', () => undefined);
      c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'chats.create', params: { title: 'x'.repeat(4096) } }));
      expect(await closed).toBe(1009);
      const again = await connect(`ws://127.0.0.1:${small.port}/rpc?token=${small.token}`, { Origin: `http://127.0.0.1:${small.port}` });
      expect(again.ok).toBe(true);
      if (again.ok) expect((await new RpcClient(again.ws).call('chats.list', {})).result).toHaveProperty('chats');
    } finally {
      await small.close();
    }
  });

  it('close() ends open sockets and stops listening', async () => {
    const other = await createHostServer({ core: observedCore(core), port: 0, staticDir: path.join(tmp, 'static') });
    const c = await connect(`ws://127.0.0.1:${other.port}/rpc?token=${other.token}`, { Origin: `http://127.0.0.1:${other.port}` });
    if (!c.ok) throw new Error('refused');
    const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)));
    const before = listeners.size;
    await other.close();
    expect(await closed).toBe(1001);
    expect(listeners.size).toBe(before - 1);
    await expect(request(other.port, '/')).rejects.toThrow();
    await other.close(); // idempotent
  });
});

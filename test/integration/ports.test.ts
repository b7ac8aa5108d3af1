/**
 * Ports (README: Ports): a server in a sealed (`none`) sandbox opened through Berth's forward,
 * a real HTTP client and a WebSocket client on 127.0.0.1; who is refused; chats kept apart; the
 * forward gone with its chat.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BerthCore } from '../../electron/main/core.js';
import { BOOKWORM, BUSYBOX, docker } from '../support/docker.js';
import { NET_IMAGE } from '../support/pretendInternet.js';
import { Harness } from '../support/harness.js';
import { enter, get, httpServerCommand, wsEchoCommand } from '../support/portServers.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
/** An image made here from berth-test:busybox with busybox renamed (removed in afterAll). */
const BARE = 'berth-test:ports-bare';
let core: BerthCore;
let profile: string;
afterAll(async () => {
  await h.cleanup();
  await docker('rmi', '-f', BARE).catch(() => undefined);
});
beforeAll(async () => {
  core = h.core();
  // berth-test:bookworm's python3 is Debian's python3-minimal, without http.server; the net image has all of it.
  profile = (await h.profile(core, { image: NET_IMAGE, egress: 'none' })).name;
});

async function serving(chatId: string, command: string, port: number): Promise<void> {
  const r = await core.sandbox.exec({ chatId, command });
  expect(r.exitCode, r.output).toBe(0);
  await waitFor(async () => (await core.ports.list({ chatId })).ports.some((p) => p.port === port), `port ${port} listening in the sandbox`);
}

function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(false);
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

describe('port forwards', () => {
  it('opens a sealed sandbox’s http.server in the browser through Berth, and only for the browser that got the link', async () => {
    const chat = await core.chats.create({ profile });
    await serving(chat.id, httpServerCommand(8000, 'marker-a.txt'), 8000);

    const forward = await core.ports.open({ chatId: chat.id, port: 8000 });
    expect(forward.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?berth_secret=/);
    const origin = `http://127.0.0.1:${forward.hostPort}`;

    const { cookie, location } = await enter(forward.url);
    expect(location).toBe('/');
    const listing = await get(`${origin}/`, { cookie });
    expect(listing.status).toBe(200);
    expect(listing.body).toContain('marker-a.txt');
    // Keep-alive and many at once: twenty requests in parallel, each the listing.
    const many = await Promise.all(Array.from({ length: 20 }, () => get(`${origin}/`, { cookie })));
    expect(many.every((a) => a.status === 200 && a.body.includes('marker-a.txt'))).toBe(true);

    // Without the cookie, with a wrong secret, or for another Host name (DNS rebinding): refused.
    expect((await get(`${origin}/`)).status).toBe(403);
    expect((await get(`${origin}/?berth_secret=guess`)).status).toBe(403);
    const rebound = await get(`${origin}/`, { cookie, host: `attacker.example:${forward.hostPort}` });
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toContain('marker-a.txt');

    expect((await core.ports.list({ chatId: chat.id })).ports).toContainEqual({ port: 8000, forward });

    // The sandbox stops: the forward ends with it, and its address stops answering.
    await core.sandbox.stop({ chatId: chat.id });
    expect(await refused(`${origin}/`)).toBe(true);
    expect(await core.ports.list({ chatId: chat.id })).toEqual({ running: false, ports: [] });
  });

  it('carries a WebSocket both ways, and the sandbox never sees Berth’s cookie', async () => {
    const bookworm = (await h.profile(core, { image: BOOKWORM, egress: 'none' })).name;
    const chat = await core.chats.create({ profile: bookworm });
    await serving(chat.id, wsEchoCommand(8765), 8765);
    const forward = await core.ports.open({ chatId: chat.id, port: 8765 });
    const { cookie } = await enter(forward.url);
    const ws = new WebSocket(`ws://127.0.0.1:${forward.hostPort}/hot`, { headers: { cookie: `${cookie}; theme=dark`, origin: `http://127.0.0.1:${forward.hostPort}` } });
    const answers: string[] = [];
    ws.on('message', (m) => answers.push(String(m)));
    await new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
    ws.send('hello');
    ws.send('cookie?');
    await waitFor(async () => answers.length >= 2, 'two answers over the WebSocket');
    expect(answers).toEqual(['echo:hello', 'theme=dark']);
    ws.close();

    // From another site's page: refused before it reaches the sandbox.
    const evil = new WebSocket(`ws://127.0.0.1:${forward.hostPort}/hot`, { headers: { cookie, origin: 'http://attacker.example' } });
    const status = await new Promise<number>((resolve) => evil.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(403);
  });

  it('keeps chats apart: a chat’s forward reaches its own server only, and ends when the chat is deleted', async () => {
    const a = await core.chats.create({ profile });
    const b = await core.chats.create({ profile });
    await serving(a.id, httpServerCommand(8000, 'only-in-a.txt'), 8000);
    await serving(b.id, httpServerCommand(8000, 'only-in-b.txt'), 8000);
    await serving(b.id, httpServerCommand(8001, 'b-8001.txt'), 8001);

    const fa = await core.ports.open({ chatId: a.id, port: 8000 });
    const fb = await core.ports.open({ chatId: b.id, port: 8000 });
    expect(fa.hostPort).not.toBe(fb.hostPort);
    const ca = await enter(fa.url);
    const inA = await get(`http://127.0.0.1:${fa.hostPort}/`, { cookie: ca.cookie });
    expect(inA.body).toContain('only-in-a.txt');
    expect(inA.body).not.toContain('only-in-b.txt');
    // A's cookie does not open B's forward (cookies ignore ports; each forward has its own).
    expect((await get(`http://127.0.0.1:${fb.hostPort}/`, { cookie: ca.cookie })).status).toBe(403);
    // B's other port is not A's to open.
    await expect(core.ports.open({ chatId: a.id, port: 8001 })).rejects.toThrow(/Nothing listens on port 8001/);

    await core.chats.delete({ chatId: a.id });
    expect(await refused(`http://127.0.0.1:${fa.hostPort}/`)).toBe(true);
    const cb = await enter(fb.url);
    expect((await get(`http://127.0.0.1:${fb.hostPort}/`, { cookie: cb.cookie })).body).toContain('only-in-b.txt');

    await core.ports.close({ chatId: b.id, port: 8000 });
    expect(await refused(`http://127.0.0.1:${fb.hostPort}/`)).toBe(true);
  });

  it('relays in an image with busybox only (its nc)', async () => {
    const p = (await h.profile(core, { image: BUSYBOX, egress: 'none' })).name;
    const chat = await core.chats.create({ profile: p });
    await serving(chat.id, 'mkdir -p /tmp/www && echo busybox-served > /tmp/www/index.html && httpd -p 8080 -h /tmp/www', 8080);
    const forward = await core.ports.open({ chatId: chat.id, port: 8080 });
    const { cookie } = await enter(forward.url);
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(`http://127.0.0.1:${forward.hostPort}/`, { cookie })));
    expect(answers.map((a) => a.body.trim())).toEqual(Array(5).fill('busybox-served'));
  });

  it('brings its own relay into an image with none of the tools: root’s, read-only, run as the sandbox user', async () => {
    // busybox under another name: no `busybox`, no nc, python3 or bash for the probe to find.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bare-'));
    fs.writeFileSync(
      path.join(dir, 'Dockerfile'),
      `FROM ${BUSYBOX}\nRUN ["/bin/busybox", "sh", "-c", "mkdir -p /opt/bb && cp /bin/busybox /opt/bb/box && for f in /bin/* /sbin/* /usr/bin/* /usr/sbin/*; do [ -L $f ] && ln -sf /opt/bb/box $f; done; rm /bin/busybox"]\n`,
    );
    await docker('build', '-q', '-t', BARE, dir);
    fs.rmSync(dir, { recursive: true, force: true });
    const p = (await h.profile(core, { image: BARE, egress: 'none' })).name;
    const chat = await core.chats.create({ profile: p });
    await serving(chat.id, 'mkdir -p /tmp/www && echo helper-served > /tmp/www/index.html && httpd -p 8080 -h /tmp/www', 8080);
    const forward = await core.ports.open({ chatId: chat.id, port: 8080 });
    const { cookie } = await enter(forward.url);
    expect((await get(`http://127.0.0.1:${forward.hostPort}/`, { cookie })).body.trim()).toBe('helper-served');
    const helper = await core.sandbox.exec({ chatId: chat.id, command: 'stat -c "%u %a" /.berth-relay /.berth-relay/busybox; echo x > /.berth-relay/busybox || echo refused' });
    expect(helper.output).toMatch(/^0 555\n0 555\n[\s\S]*refused\n$/);
  });

  it('comes back after a restart of Berth when the port is still open, at the same address with the same cookie', async () => {
    const dataDir = h.dataDir();
    const first = h.core({ dataDir });
    const p = (await h.profile(first, { image: NET_IMAGE, egress: 'none', retention: { idleStopMinutes: 30, onQuit: 'keep' } })).name;
    const chat = await first.chats.create({ profile: p });
    const r = await first.sandbox.exec({ chatId: chat.id, command: httpServerCommand(8000, 'survives.txt') });
    expect(r.exitCode).toBe(0);
    await waitFor(async () => (await first.ports.list({ chatId: chat.id })).ports.some((x) => x.port === 8000), 'port 8000');
    const forward = await first.ports.open({ chatId: chat.id, port: 8000 });
    const { cookie } = await enter(forward.url);
    await first.dispose();
    expect(await refused(`http://127.0.0.1:${forward.hostPort}/`)).toBe(true);

    const second = h.core({ dataDir });
    await second.ready;
    const back = await waitFor(async () => {
      const a = await get(`http://127.0.0.1:${forward.hostPort}/`, { cookie }).catch(() => null);
      return a?.status === 200 ? a : undefined;
    }, 'the forward back after the restart');
    expect(back.body).toContain('survives.txt');
    expect((await second.ports.list({ chatId: chat.id })).ports).toContainEqual({ port: 8000, forward });
  });
});

/**
 * Ports (README: Ports): a sandbox's forwards share one relay in it, started by one exec and run
 * as the sandbox user, so a page's parallel connections and a WebSocket start no process each;
 * it comes back if killed, and ends with the sandbox's last forward.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BerthCore } from '../../electron/main/core.js';
import { MUX_MARKER } from '../../electron/main/ports/common/muxPrograms.js';
import { BOOKWORM, docker } from '../support/docker.js';
import { NET_IMAGE } from '../support/pretendInternet.js';
import { Harness } from '../support/harness.js';
import { enter, get, httpServerCommand, wsEchoCommand } from '../support/portServers.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let core: BerthCore;
let profile: string;
/** berth-test:bookworm without python3 on PATH (its interpreter kept at /opt/srv/py for the test's own server), as Debian's slim images are: perl only. */
const PERL_ONLY = 'berth-test:ports-perl';
afterAll(async () => {
  await h.cleanup();
  await docker('rmi', '-f', PERL_ONLY).catch(() => undefined);
});
beforeAll(async () => {
  core = h.core();
  profile = (await h.profile(core, { image: NET_IMAGE, egress: 'none' })).name;
});

/**
 * The relay processes in the sandbox (`python3 -I -S -c …`, `perl -e …`; one per connection before:
 * `busybox nc …`, listeningPorts' `python3 -c` relay or `bash -c exec 3<>…`), with their uid. Matched
 * by the relays' own command lines: any other `bash -c` or `python3 -c` running at that moment (a
 * command of Berth's own, the listing itself) is not a relay.
 */
async function relays(chatId: string): Promise<Array<{ pid: string; uid: string; shared: boolean }>> {
  const listing = await core.sandbox.exec({
    chatId,
    command: `for p in /proc/[0-9]*; do c=$(tr '\\0' ' ' < $p/cmdline 2>/dev/null); case "$c" in "python3 -c import os, select, socket, sys"*|"python3 -I -S -c "*|"perl -e "*|"busybox nc "*|"bash -c exec 3<>"*) echo "\${p#/proc/} $(awk '/^Uid:/ {print $2}' $p/status) $(echo "$c" | grep -c '${MUX_MARKER}')";; esac; done`,
  });
  return listing.output
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [pid, uid, shared] = l.split(' ');
      return { pid: pid as string, uid: uid as string, shared: shared === '1' };
    });
}

describe('one relay per sandbox', () => {
  it('carries every connection of a sandbox’s forwards through one relay run as the sandbox user, started again if killed, gone with the last forward', async () => {
    const chat = await core.chats.create({ profile });
    for (const command of [httpServerCommand(8000, 'mux-a.txt'), wsEchoCommand(8765)]) expect((await core.sandbox.exec({ chatId: chat.id, command })).exitCode).toBe(0);
    await waitFor(async () => {
      const ports = (await core.ports.list({ chatId: chat.id })).ports.map((p) => p.port);
      return ports.includes(8000) && ports.includes(8765);
    }, 'both servers listening');
    const web = await core.ports.open({ chatId: chat.id, port: 8000 });
    const hot = await core.ports.open({ chatId: chat.id, port: 8765 });
    const { cookie } = await enter(web.url);
    const origin = `http://127.0.0.1:${web.hostPort}`;
    const many = await Promise.all(Array.from({ length: 12 }, () => get(`${origin}/`, { cookie })));
    expect(many.every((a) => a.status === 200 && a.body.includes('mux-a.txt'))).toBe(true);

    // A download its reader stopped reading holds back its own connection only: the others answer, and it ends whole.
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'head -c 8388608 /dev/urandom > /tmp/site-8000/big.bin' })).exitCode).toBe(0);
    const stalled = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(`${origin}/big.bin`, { agent: false, headers: { cookie } }, resolve).on('error', reject));
    stalled.pause();
    const meanwhile = await Promise.all(Array.from({ length: 3 }, () => get(`${origin}/`, { cookie })));
    expect(meanwhile.every((a) => a.status === 200 && a.body.includes('mux-a.txt'))).toBe(true);
    let bytes = 0;
    stalled.on('data', (c: Buffer) => (bytes += c.length));
    stalled.resume();
    await new Promise((resolve) => stalled.once('end', resolve));
    expect(bytes).toBe(8388608);

    // Two WebSockets open at once (two tabs' hot reload): one relay process carries both.
    const hotCookie = (await enter(hot.url)).cookie;
    const sockets = [0, 1].map(() => new WebSocket(`ws://127.0.0.1:${hot.hostPort}/`, { headers: { cookie: hotCookie, origin: `http://127.0.0.1:${hot.hostPort}` } }));
    const answers: string[] = [];
    for (const ws of sockets) ws.on('message', (m) => answers.push(String(m)));
    await Promise.all(sockets.map((ws) => new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)))));
    sockets.forEach((ws, n) => ws.send(`tab ${n}`));
    await waitFor(async () => answers.length >= 2, 'both echoes');
    expect(answers.sort()).toEqual(['echo:tab 0', 'echo:tab 1']);

    // Twelve connections at once and two WebSockets on two forwards: one relay in the sandbox, not root's.
    const running = await relays(chat.id);
    expect(running).toHaveLength(1);
    expect(running[0]?.shared).toBe(true);
    expect(running[0]?.uid).not.toBe('0');
    for (const ws of sockets) ws.close();

    // Killed inside the sandbox: the connections it carried end, the next request starts it again.
    await core.sandbox.exec({ chatId: chat.id, command: `kill ${running[0]?.pid}` });
    const again = await waitFor(async () => {
      const a = await get(`${origin}/`, { cookie }).catch(() => null);
      return a?.status === 200 ? a : undefined;
    }, 'an answer through a new relay');
    expect(again.body).toContain('mux-a.txt');
    expect(await relays(chat.id)).toHaveLength(1);

    // The server stops: a request says why it found nothing, and the relay carries on for the rest.
    await core.sandbox.exec({ chatId: chat.id, command: "for p in /proc/[0-9]*; do grep -q 'http[.]server' $p/cmdline 2>/dev/null && kill ${p#/proc/}; done; true" });
    const gone = await waitFor(async () => {
      const a = await get(`${origin}/`, { cookie });
      return a.status === 502 ? a : undefined;
    }, 'the forward telling the server is gone');
    expect(gone.body).toMatch(/Nothing answered on port 8000 in the sandbox \(Connection refused\)/);
    expect(await relays(chat.id)).toHaveLength(1);

    await core.ports.close({ chatId: chat.id, port: 8000 });
    expect(await relays(chat.id)).toHaveLength(1);
    await core.ports.close({ chatId: chat.id, port: 8765 });
    await waitFor(async () => (await relays(chat.id)).length === 0, 'the relay gone with the last forward');
  });

  it('runs the relay with perl where the image has no python3, and carries a large WebSocket message whole', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-perl-'));
    fs.writeFileSync(path.join(dir, 'Dockerfile'), `FROM ${BOOKWORM}\nRUN mkdir -p /opt/srv && mv /usr/bin/python3.11 /opt/srv/py && rm -f /usr/bin/python3\n`);
    await docker('build', '-q', '-t', PERL_ONLY, dir);
    fs.rmSync(dir, { recursive: true, force: true });
    const p = (await h.profile(core, { image: PERL_ONLY, egress: 'none' })).name;
    const chat = await core.chats.create({ profile: p });
    expect((await core.sandbox.exec({ chatId: chat.id, command: wsEchoCommand(8765).replace('nohup python3', 'nohup /opt/srv/py') })).exitCode).toBe(0);
    await waitFor(async () => (await core.ports.list({ chatId: chat.id })).ports.some((x) => x.port === 8765), 'the echo server listening');
    const hot = await core.ports.open({ chatId: chat.id, port: 8765 });
    const cookie = (await enter(hot.url)).cookie;
    const sockets = [0, 1].map(() => new WebSocket(`ws://127.0.0.1:${hot.hostPort}/`, { headers: { cookie, origin: `http://127.0.0.1:${hot.hostPort}` } }));
    const answers: string[] = [];
    for (const ws of sockets) ws.on('message', (m) => answers.push(String(m)));
    await Promise.all(sockets.map((ws) => new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)))));
    const big = 'x'.repeat(50_000);
    sockets[0]?.send(big);
    sockets[1]?.send('small');
    await waitFor(async () => answers.length >= 2, 'both echoes');
    expect(answers.map((a) => a.length).sort((a, b) => a - b)).toEqual([10, 50_005]);
    const running = await relays(chat.id);
    expect(running).toHaveLength(1);
    expect(running[0]?.shared).toBe(true);
    for (const ws of sockets) ws.close();
  });
});

/**
 * The profile form's "Check connection" (engine.check) as a page reaches it: over the browser
 * host's JSON-RPC, against a real core. A page may be anyone who has the page, so what it reads
 * back must not scan this computer's ports or files: every engine that does not answer gets one
 * sentence (a closed port, a plain HTTP server and a TLS server alike), key files the user never
 * saved with the profile are not read at all, saving says one sentence per field whatever is
 * wrong with the file, and checks are counted. The engine's own words go to main's log.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineSetting } from '../../../shared/engines.js';
import { ManualClock } from '../../../test/support/manualClock.js';
import { createCore, type BerthCore } from '../core.js';
import { createHostServer, type HostServer } from './server.js';
import { RpcClient, connect, type RpcMessage } from './testClient.js';

let tmp: string;
let core: BerthCore;
let host: HostServer;
let rpc: RpcClient;
const clock = new ManualClock();
const logged: string[] = [];
const servers: { close(): void }[] = [];
const ports = { closed: 0, http: 0, tls: 0 };
const f = (name: string) => path.join(tmp, name);

const listen = (server: net.Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-engine-check-rpc-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=127.0.0.1'], { cwd: tmp, stdio: 'ignore' });
  fs.writeFileSync(f('big.pem'), Buffer.alloc(300 * 1024, 'A'));
  fs.writeFileSync(f('passwords'), 'root:secret-hash:1:0:99999:7:::\n');
  fs.mkdirSync(f('folder'));
  fs.writeFileSync(f('known_hosts'), '');

  const closed = net.createServer();
  ports.closed = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  const web = http.createServer((_req, res) => res.end('hello'));
  ports.http = await listen(web);
  const secure = tls.createServer({ key: fs.readFileSync(f('key.pem')), cert: fs.readFileSync(f('cert.pem')) }, (s) => s.end());
  ports.tls = await listen(secure);
  servers.push(web, secure);

  core = createCore({
    dataDir: f('data'),
    env: { DOCKER_HOST: 'unix:///nonexistent.sock' },
    reapIntervalMs: 0,
    clock,
    knownHostsFiles: [f('known_hosts')],
    log: (line) => logged.push(line),
  });
  host = await createHostServer({ core, port: 0, staticDir: tmp });
  const c = await connect(`ws://127.0.0.1:${host.port}/rpc?token=${host.token}`, { Origin: `http://127.0.0.1:${host.port}` });
  if (!c.ok) throw new Error(`refused with ${c.status}`);
  rpc = new RpcClient(c.ws);
});

afterAll(async () => {
  await rpc?.close();
  await host?.close();
  await core?.dispose();
  for (const s of servers) s.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Status {
  state: string;
  message: string | null;
  hint: string | null;
}

/** One "Check connection" in a fresh minute (the count of checks is tested on its own). */
async function check(engine: EngineSetting, profile?: string): Promise<Status> {
  clock.advance(61_000);
  const answer = await rpc.call('engine.check', { engine, ...(profile ? { profile } : {}) });
  if (answer.error) throw new Error(`engine.check failed: ${answer.error.message}`);
  return answer.result as Status;
}

const ssh = (port: number): EngineSetting => ({ kind: 'ssh', url: `ssh://me@127.0.0.1:${port}`, identityFile: null });
const tcp = (port: number, files: { ca: string; cert: string; key: string }): EngineSetting => ({ kind: 'tcp', url: `tcp://127.0.0.1:${port}`, tls: files });
const pair = () => ({ ca: f('cert.pem'), cert: f('cert.pem'), key: f('key.pem') });
/** The sentence with the port it names taken out, so that answers about three ports compare. */
const sentence = (s: Status, port: number) => ({ state: s.state, message: s.message?.replaceAll(String(port), 'PORT'), hint: s.hint?.replaceAll(String(port), 'PORT') });

describe('engine.check over the browser host', () => {
  it('tells a page the same about a closed port, a plain HTTP port and a TLS port on 127.0.0.1', async () => {
    const answers = [];
    for (const port of [ports.closed, ports.http, ports.tls]) answers.push(sentence(await check(ssh(port)), port));
    expect(answers[0]).toMatchObject({ state: 'unreachable', message: 'Berth could not connect to the engine at ssh://me@127.0.0.1:PORT.' });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // The engine's own words are main's to log: the closed port's refusal is there, not on the page.
    expect(logged.join('\n')).toMatch(new RegExp(`ssh://me@127\\.0\\.0\\.1:${ports.closed}.*ECONNREFUSED`));
  });

  it('reads the key files saved with the profile, and still says one sentence for the three ports', async () => {
    await rpc.call('profiles.create', { name: 'far', engine: tcp(1, pair()), egress: 'none' }).then((r) => expect(r.error).toBeUndefined());
    const answers = [];
    for (const port of [ports.closed, ports.http, ports.tls]) answers.push(sentence(await check(tcp(port, pair()), 'far'), port));
    expect(answers[0]).toMatchObject({ state: 'unreachable', message: 'Berth could not connect to the engine at tcp://127.0.0.1:PORT.' });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('never reads key files the profile was not saved with: one sentence, whatever the path is', async () => {
    const paths = ['/etc/shadow', f('missing.pem'), f('big.pem'), f('folder'), f('passwords'), f('key.pem')];
    const answers: Status[] = [];
    for (const p of paths) {
      answers.push(await check(tcp(ports.closed, { ca: p, cert: p, key: p })));
      answers.push(await check(tcp(ports.closed, { ca: p, cert: f('cert.pem'), key: f('key.pem') }), 'far'));
      answers.push(await check({ kind: 'ssh', url: `ssh://me@127.0.0.1:${ports.closed}`, identityFile: p }));
      answers.push(await check({ kind: 'ssh', url: `ssh://me@127.0.0.1:${ports.closed}`, identityFile: p }, 'far'));
    }
    const said = answers.map((a) => ({ state: a.state, message: a.message, hint: a.hint }));
    const first = said[0]!;
    expect(first.state).toBe('unreachable');
    expect(first.message).toMatch(/saved with the profile/);
    for (const a of said) expect(a).toEqual(first);
    for (const p of paths) expect(`${first.message} ${first.hint}`).not.toContain(p);
  });

  it('refuses a saved key file with one sentence for its field, whether it is missing, a folder, too big or something else', async () => {
    const refusals: string[] = [];
    for (const p of [f('missing.pem'), f('big.pem'), f('folder'), f('passwords'), '/etc/shadow']) {
      const answer: RpcMessage = await rpc.call('profiles.create', { name: 'wrong', engine: tcp(1, { ca: f('cert.pem'), cert: p, key: f('key.pem') }), egress: 'none' });
      expect(answer.error?.data?.code).toBe('invalid_request');
      refusals.push(`${answer.error?.message} ${answer.error?.data?.hint}`.replaceAll(p, 'FILE'));
    }
    expect(refusals[0]).toMatch(/client certificate "FILE"/);
    expect(new Set(refusals).size).toBe(1);
    expect(refusals[0]).not.toContain('secret');
  });

  it('counts checks: past the limit a page is told to wait, and may check again a minute later', async () => {
    clock.advance(61_000);
    let refused: RpcMessage | null = null;
    for (let i = 0; i < 20 && !refused; i++) {
      const answer = await rpc.call('engine.check', { engine: ssh(ports.closed) });
      if (answer.error) refused = answer;
    }
    expect(refused?.error?.data?.code).toBe('invalid_request');
    expect(refused?.error?.message).toMatch(/Berth checks at most \d+ engine connections a minute/);
    expect(refused?.error?.data?.hint).toMatch(/wait a minute/i);
    clock.advance(61_000);
    expect(((await rpc.call('engine.check', { engine: ssh(ports.closed) })).result as Status).state).toBe('unreachable');
  });
});

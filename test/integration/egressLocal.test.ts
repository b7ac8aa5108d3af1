/**
 * An allowed name whose DNS answer is one of this computer's own addresses: not one of the
 * private ranges the proxy always refuses, but the address of one of its interfaces (here a
 * TEST-NET-3 address put on loopback for the test, as a server's public address would be) or
 * the gateway of the proxy's outside bridge. A service of this computer on 0.0.0.0 answers on
 * each of them; the proxy must refuse them over HTTP and HTTPS, on both HAProxy's and squid's
 * path, including an address that appears after the proxy started.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { Harness } from '../support/harness.js';
import { docker } from '../support/docker.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';
import { startPretendDns, type PretendDns } from '../support/pretendDns.js';
import { waitFor } from '../support/waitFor.js';
import { TUNNEL } from '../support/egressTunnel.js';

/** TEST-NET-3 (RFC 5737): documentation only, never a real host, and in none of the private ranges. */
const SELF_ADDRESS = '203.0.113.7';
/** Put on an interface only once the proxy is running: the deny list must follow the interfaces. */
const LATE_ADDRESS = '203.0.113.8';
const REACHED = 'host service reached';

const h = new Harness();
let inet: PretendInternet;
let dns: PretendDns;
let core: BerthCore;
let chatId: string;
let profile: string;
let gateway: string;
const servers: http.Server[] = [];
let httpPort: number;
let httpsPort: number;
const added: string[] = [];

function addAddress(address: string): void {
  try {
    execFileSync('ip', ['addr', 'replace', `${address}/32`, 'dev', 'lo'], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`This test puts ${address} on loopback and needs root (CAP_NET_ADMIN) and iproute2 for it: ${String(error)}`, { cause: error });
  }
  added.push(address);
}

async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  return (server.address() as AddressInfo).port;
}

async function run(command: string): Promise<string> {
  return (await core.sandbox.exec({ chatId, command, timeoutMs: 60_000 })).output;
}

/** What the sandbox gets for a name over plain HTTP (HAProxy's port) and over HTTPS (CONNECT, then squid). */
async function fetchBoth(name: string): Promise<string> {
  return run(`curl -sS -f --max-time 10 http://${name}:${httpPort}/; echo "http=$?"; curl -sS -k --max-time 10 https://${name}:${httpsPort}/; echo "https=$?"`);
}

/** A plain 403 from the proxy, to both: HTTP (curl -f: 22) and the CONNECT (curl: 56, the tunnel refused). */
function expectRefused(out: string): void {
  expect(out).not.toContain(REACHED);
  expect(out).toContain('http=22');
  expect(out).toMatch(/CONNECT tunnel failed, response 403\s+https=56/);
}

beforeAll(async () => {
  inet = await startPretendInternet();
  // The bridge's own address on this computer (Docker reports no Gateway for a network made with
  // --subnet alone): what a container on that network reaches this computer at.
  const bridge = `br-${(await docker('network', 'inspect', '-f', '{{.Id}}', inet.network)).slice(0, 12)}`;
  gateway = /inet ([0-9.]+)\//.exec(execFileSync('ip', ['-4', '-o', 'addr', 'show', 'dev', bridge], { encoding: 'utf8' }))?.[1] ?? '';
  expect(gateway).toMatch(/^198\.18\.\d+\.1$/);
  const certs = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-self-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=self.test',
    '-keyout', path.join(certs, 'key.pem'), '-out', path.join(certs, 'cert.pem')], { stdio: 'ignore' });
  const answer = (_req: http.IncomingMessage, res: http.ServerResponse) => res.end(`${REACHED}\n`);
  httpPort = await listen(http.createServer(answer));
  httpsPort = await listen(https.createServer({ key: fs.readFileSync(path.join(certs, 'key.pem')), cert: fs.readFileSync(path.join(certs, 'cert.pem')) }, answer));
  fs.rmSync(certs, { recursive: true, force: true });
  addAddress(SELF_ADDRESS);
  dns = await startPretendDns(inet.network, { 'self.test': SELF_ADDRESS, 'gateway.test': gateway, 'late.test': LATE_ADDRESS });
  core = h.core({ egress: { outsideNetwork: inet.network, dns: [dns.ip] } });
  const names = ['self.test', 'gateway.test', 'late.test'];
  profile = (await h.profile(core, {
    image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test', ...names.flatMap((n) => [`${n}:${httpPort}`, `${n}:${httpsPort}`])],
  })).name;
  chatId = (await core.chats.create({ profile })).id;
}, 180_000);

afterAll(async () => {
  await h.cleanup();
  await dns?.stop();
  await inet?.stop();
  for (const address of added) execFileSync('ip', ['addr', 'del', `${address}/32`, 'dev', 'lo']);
  for (const server of servers) server.close();
}, 120_000);

describe("the allowlist proxy and this computer's own addresses", () => {
  it('the service answers on each address from the outside network (the control), and the allowlist works', async () => {
    for (const address of [SELF_ADDRESS, gateway]) {
      expect(await docker('exec', dns.name, 'curl', '-sS', '--max-time', '5', `http://${address}:${httpPort}/`), address).toContain(REACHED);
    }
    expect(await run('curl -sS -f --max-time 10 http://allowed.test/')).toContain('hello from allowed.test');
  });

  it("refuses an allowed name that resolves to an address of this computer's interfaces, over HTTP and HTTPS", async () => {
    const out = await fetchBoth('self.test');
    expect(out).not.toContain(REACHED);
    expectRefused(out);
  });

  it("refuses an allowed name that resolves to the gateway of the proxy's outside bridge", async () => {
    const out = await fetchBoth('gateway.test');
    expect(out).not.toContain(REACHED);
    expectRefused(out);
  });

  it('squid on its own refuses a CONNECT to those addresses too (behind HAProxy)', async () => {
    const proxyId = await docker('ps', '-q', '--filter', `label=berth.instance=${core.instanceId}`, '--filter', 'label=berth.egress=proxy', '--filter', `label=berth.profile=${profile}`);
    expect(proxyId).toMatch(/^[0-9a-f]{12}$/);
    for (const name of ['self.test', 'gateway.test']) {
      // The control first: the proxy resolves the name to the host's address.
      expect(await docker('exec', proxyId, 'getent', 'hosts', name), name).toContain(name === 'self.test' ? SELF_ADDRESS : gateway);
      // squid's own certificate at most (it bumps to show a refusal), never the host service's.
      const out = await docker('exec', proxyId, 'bash', '-c',
        `echo | timeout 10 openssl s_client -proxy 127.0.0.1:3129 -connect ${name}:${httpsPort} -servername ${name} 2>&1 | grep subject= ; true`);
      expect(out, name).not.toContain('CN = self.test');
    }
  });

  it('refuses an address that appears on an interface after the proxy started, keeping an open tunnel', async () => {
    // A tunnel opened before the change (HTTPS to an allowed host, one request answered) must
    // carry its next request after the proxy took the new list.
    await run(`cat > /tmp/tunnel.py <<'EOF'\n${TUNNEL}\nEOF\nnohup python3 /tmp/tunnel.py > /tmp/tunnel.log 2>&1 &`);
    await waitFor(async () => (await run('cat /tmp/tunnel.log')).includes('first True'), 'the tunnel to answer its first request', 30_000);
    addAddress(LATE_ADDRESS);
    expect(await docker('exec', dns.name, 'curl', '-sS', '--max-time', '5', `http://${LATE_ADDRESS}:${httpPort}/`)).toContain(REACHED);
    // Berth notices interface changes on an interval: wait for the refusal, never for time.
    const out = await waitFor(async () => {
      const r = await fetchBoth('late.test');
      return !r.includes(REACHED) && r;
    }, 'the proxy to refuse the new address', 60_000);
    expectRefused(out);
    await run('touch /tmp/go');
    const tunnel = await waitFor(async () => {
      const log = await run('cat /tmp/tunnel.log');
      return log.includes('second') && log;
    }, "the tunnel's second answer", 30_000);
    expect(tunnel).toContain('second True');
  }, 120_000);
});

/**
 * Egress (README: Network egress) against the real engine and a pretend internet of our own: an allowlist
 * profile's sandbox reaches allowed hosts over HTTP and HTTPS through Berth's proxy and
 * nothing else (not blocked hosts, IP literals, other ports, DNS, or this computer's
 * services); 'none' has no network; "Allow this host" lets the next request through.
 */
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { Harness } from '../support/harness.js';
import { docker } from '../support/docker.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';
import { runTurn } from '../support/agentDriver.js';
import { byTurn, startOpenAiTestServer, type RecordedRequest } from '../support/openaiTestServer.js';

const h = new Harness();
let inet: PretendInternet;
let core: BerthCore;
let hostService: http.Server;
let hostPort: number;
let chatId: string;
let profile: string;

/** Every IPv4 address of this computer (its interfaces, Docker's bridges among them). */
function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address));
}

async function run(command: string, id = chatId): Promise<{ exitCode: number; output: string }> {
  const r = await core.sandbox.exec({ chatId: id, command, timeoutMs: 30_000 });
  return { exitCode: r.exitCode, output: r.output };
}

beforeAll(async () => {
  inet = await startPretendInternet();
  hostService = http.createServer((_req, res) => res.end('host service reached\n'));
  await new Promise<void>((resolve) => hostService.listen(0, '0.0.0.0', resolve));
  hostPort = (hostService.address() as AddressInfo).port;
  core = h.core({ egress: { outsideNetwork: inet.network } });
  // berth-egress-proxy: an allowed name that resolves (in the proxy) to a private address.
  profile = (await h.profile(core, { image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test', 'berth-egress-proxy'] })).name;
  const folder = h.workspace('certs', { 'ca.pem': inet.caPem });
  chatId = (await core.chats.create({ profile })).id;
  await core.workspace.attach({ chatId, path: folder, readOnly: true });
}, 120_000);

afterAll(async () => {
  await h.cleanup();
  await inet?.stop();
  hostService?.close();
}, 120_000);

describe("egress 'allowlist'", () => {
  it('reaches an allowed host over HTTP and HTTPS (CONNECT, the server\'s own certificate) through the proxy variables', async () => {
    const plain = await run('curl -sS -f http://allowed.test/');
    expect(plain.output).toContain('hello from allowed.test on 80');
    const tls = await run('curl -sS -f --cacert /workspace/ca.pem https://allowed.test/');
    expect(tls.output).toContain('hello from allowed.test on 443');
  });

  it('refuses a host outside the list, an IP literal and another port, over HTTP and HTTPS', async () => {
    for (const url of ['http://blocked.test/', 'https://blocked.test/', `http://${inet.webIp}/`, `https://${inet.webIp}/`, 'http://allowed.test:8080/']) {
      const r = await run(`curl -sS -f --max-time 10 --cacert /workspace/ca.pem ${url}`);
      expect(r.exitCode, url).not.toBe(0);
      expect(r.output, url).not.toContain('hello from');
    }
    // Raw TCP, past the proxy variables: no route to the pretend internet at all.
    const raw = await run(`nc -z -w 3 ${inet.webIp} 80; echo "nc=$?"; curl -sS --noproxy '*' --max-time 5 http://${inet.webIp}/; echo "curl=$?"`);
    expect(raw.output).toContain('nc=1');
    expect(raw.output).not.toContain('hello from');
    // Raw TCP to the proxy, asking for an IP literal tunnel by hand.
    const tunnel = await run(`printf 'CONNECT ${inet.webIp}:443 HTTP/1.1\\r\\nHost: ${inet.webIp}:443\\r\\n\\r\\n' | nc -w 3 berth-egress-proxy 3128 | head -1`);
    expect(tunnel.output).toMatch(/HTTP\/1\.1 403/);
    // Plain HTTP (HAProxy's port) by hand: an absolute URI naming a refused host behind an
    // allowed Host header is refused, as are a CONNECT and an IP literal Host.
    const plain = (req: string) => run(`printf '${req}Connection: close\\r\\n\\r\\n' | nc -w 5 berth-egress-proxy 3130 | head -1`);
    expect((await plain('GET http://blocked.test/ HTTP/1.1\\r\\nHost: allowed.test\\r\\n')).output).toMatch(/HTTP\/1\.1 40[03]/);
    expect((await plain('CONNECT allowed.test:443 HTTP/1.1\\r\\nHost: allowed.test:443\\r\\n')).output).toMatch(/HTTP\/1\.1 403/);
    expect((await plain(`GET / HTTP/1.1\\r\\nHost: ${inet.webIp}\\r\\n`)).output).toMatch(/HTTP\/1\.1 403/);
    expect((await plain('GET / HTTP/1.1\\r\\nHost: allowed.test\\r\\n')).output).toMatch(/HTTP\/1\.1 200/);
    // CONNECT by hand (HAProxy's port 3128): an allowed name on another port, an IPv6 literal,
    // and an allowed name that resolves to a private address are plain 403s; one with no port a 400.
    const connect = (authority: string) => run(`printf 'CONNECT ${authority} HTTP/1.1\\r\\nHost: ${authority}\\r\\n\\r\\n' | nc -w 5 berth-egress-proxy 3128 | head -1`);
    for (const authority of ['allowed.test:8080', '[::1]:443', 'berth-egress-proxy:443', 'berth-egress-proxy:80']) {
      expect((await connect(authority)).output, authority).toMatch(/HTTP\/1\.1 403/);
    }
    expect((await connect('allowed.test')).output).toMatch(/HTTP\/1\.1 40[03]/);
    expect((await connect('allowed.test:443')).output).toMatch(/HTTP\/1\.1 200/);
    expect((await run('curl -sS -f --max-time 10 http://berth-egress-proxy/; echo "rc=$?"')).output).toMatch(/403[\s\S]*rc=22/);
    // The control: inside the proxy that name does resolve, to its own private address.
    // This profile's proxy (the default profile's warm sandbox has one too).
    const proxyId = await docker('ps', '-q', '--filter', `label=berth.instance=${core.instanceId}`, '--filter', 'label=berth.egress=proxy', '--filter', `label=berth.profile=${profile}`);
    expect(proxyId).toMatch(/^[0-9a-f]{12}$/);
    expect(await docker('exec', proxyId, 'getent', 'hosts', 'berth-egress-proxy')).toMatch(/^(10|172|192)\./);
    // squid, behind HAProxy, refuses on its own a CONNECT the list does not name, even with an
    // allowed SNI (from inside the proxy; squid's own certificate, never the server's); control: an allowed one.
    const viaSquid = (target: string) => docker('exec', proxyId, 'bash', '-c', `echo | timeout 10 openssl s_client -proxy 127.0.0.1:3129 -connect ${target} -servername allowed.test 2>&1 | grep subject= ; true`);
    expect(await viaSquid('allowed.test:443')).toContain('CN = allowed.test');
    expect(await viaSquid('blocked.test:443')).not.toContain('CN = allowed.test');
  });

  it('checks the TLS client hello too: a CONNECT to an allowed host whose SNI names a refused one is cut, no interception', async () => {
    const hello = (sni: string) =>
      `echo | openssl s_client -proxy berth-egress-proxy:3128 -connect allowed.test:443 -servername ${sni} -CAfile /workspace/ca.pem 2>&1 | grep -E 'Verify return code|subject=' ; echo "rc=$?"`;
    const good = await run(hello('allowed.test'));
    // The server's own certificate (signed by the test CA), not one the proxy made up.
    expect(good.output).toContain('Verify return code: 0 (ok)');
    expect(good.output).toContain('CN = allowed.test');
    const fronted = await run(hello('blocked.test'));
    expect(fronted.output).not.toContain('subject=');
    // Both names allowed, but the SNI is not the CONNECT's host: cut too (a tunnel opened for
    // one allowed name never carries a TLS session for another).
    const swapped = await run(hello('berth-egress-proxy'));
    expect(swapped.output).not.toContain('subject=');
    await waitForLog((r) => r.method === 'CONNECT' && r.host === 'berth-egress-proxy' && r.port === 443 && !r.allowed && r.bytesIn < 100);
    // A client hello with no SNI is cut as well (squid alone would judge it by the CONNECT's host).
    const bare = await run(`echo | openssl s_client -proxy berth-egress-proxy:3128 -connect allowed.test:443 -noservername -CAfile /workspace/ca.pem 2>&1 | grep -E 'subject=' ; echo "rc=$?"`);
    expect(bare.output).not.toContain('subject=');
    // Plain HTTP inside an allowed tunnel never reaches the server: squid answers it with a 403.
    const notTls = await run(`printf 'CONNECT allowed.test:443 HTTP/1.1\\r\\nHost: allowed.test:443\\r\\n\\r\\nGET / HTTP/1.1\\r\\nHost: allowed.test\\r\\n\\r\\n' | nc -w 5 berth-egress-proxy 3128 | grep '^HTTP/'`);
    expect(notTls.output).toMatch(/^HTTP\/1\.1 200 [^\n]*\nHTTP\/1\.1 403 /);
    expect(notTls.output).not.toContain('hello from');
    // The Network view names the refused name (what "Allow this host" would allow).
    await waitForLog((r) => r.method === 'CONNECT' && r.host === 'blocked.test' && r.port === 443 && !r.allowed && r.bytesIn < 100);
  });

  it('resolves no names but the proxy\'s, so DNS cannot carry data out', async () => {
    const r = await run('getent hosts berth-egress-proxy >/dev/null && echo proxy-resolves; for n in allowed.test other.test example.com; do getent hosts $n || echo "no-$n"; done');
    expect(r.output).toContain('proxy-resolves');
    expect(r.output).toContain('no-allowed.test');
    expect(r.output).toContain('no-other.test');
    expect(r.output).toContain('no-example.com');
  });

  it("cannot reach a service on this computer's 0.0.0.0, by any of its addresses, directly or through the proxy", async () => {
    const addrs = hostAddresses();
    expect(addrs.length).toBeGreaterThan(0);
    // All at once: each unreachable address costs a connect timeout.
    const probes = addrs.map((a) => `(curl -sS --noproxy '*' --max-time 3 http://${a}:${hostPort}/; curl -sS --max-time 5 http://${a}:${hostPort}/) &`).join(' ');
    const r = await run(`${probes} wait; echo done`);
    expect(r.output).toContain('done');
    expect(r.output).not.toContain('host service reached');
    // Nor the Docker API: no socket in the sandbox, and its TCP ports are not reachable either.
    const api = await run(`test -e /var/run/docker.sock && echo socket-present; ${addrs.map((a) => `(curl -sS --noproxy '*' --max-time 3 http://${a}:2375/version; curl -sS --max-time 5 http://${a}:2375/version) &`).join(' ')} wait; echo done`);
    expect(api.output).toContain('done');
    expect(api.output).not.toContain('socket-present');
    expect(api.output).not.toContain('ApiVersion');
  });

  it('shows each attempt in the Network view, and "Allow this host" lets the very next request through', async () => {
    const before = await run('curl -sS -f --max-time 10 --cacert /workspace/ca.pem https://blocked.test/; curl -sS -f --max-time 10 http://blocked.test/');
    expect(before.output).not.toContain('hello from');
    await waitForLog((r) => r.host === 'blocked.test' && r.port === 443 && !r.allowed);
    await waitForLog((r) => r.method === 'GET' && r.host === 'blocked.test' && r.port === 80 && !r.allowed);
    const log = await core.network.log({ chatId });
    expect(log.mode).toBe('allowlist');
    expect(log.requests.some((r) => r.host === 'allowed.test' && r.allowed && r.bytesIn > 0)).toBe(true);
    expect(log.requests.some((r) => r.host === inet.webIp && !r.allowed)).toBe(true);
    // Plain HTTP goes through HAProxy: its rows carry method, port and bytes like squid's.
    expect(log.requests.some((r) => r.method === 'GET' && r.host === 'allowed.test' && r.port === 80 && r.allowed && r.bytesIn > 0)).toBe(true);

    // The host for both web ports (port null): the profile's list takes the bare name.
    const allowed = await core.network.allow({ chatId, host: 'blocked.test', port: null, scope: 'profile' });
    expect(allowed.entry).toBe('blocked.test');
    expect((await core.profiles.list({})).profiles.find((p) => p.name === profile)?.settings.egressAllow).toContain('blocked.test');
    const after = await run('curl -sS -f --max-time 10 --cacert /workspace/ca.pem https://blocked.test/');
    expect(after.output).toContain('hello from blocked.test on 443');
    // Both proxies took the change: plain HTTP's next request passes too.
    expect((await run('curl -sS -f --max-time 10 http://blocked.test/')).output).toContain('hello from blocked.test on 80');
  });
});

describe('the agent', () => {
  it("reads in its tool result that the network policy refused the request, and how to allow it", async () => {
    const KEY = 'sk-test-0123456789abcdef';
    const server = await startOpenAiTestServer({ apiKey: KEY });
    try {
      await core.profiles.update({ name: profile, settings: { agent: { baseUrl: server.baseUrl, model: 'm', approval: 'auto' } } });
      await core.agent.setKey({ profile, apiKey: KEY });
      server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: 'curl -sS -f --max-time 10 https://other.test/' } }] }, { text: 'ok' }));
      // A refusal just before the turn (the user's own command) is not the agent's: its note
      // names only what its command ran into, and waits for that line even when an older one is in.
      expect((await run('curl -sS -f --max-time 10 http://earlier.test/')).exitCode).not.toBe(0);
      await waitForLog((r) => r.host === 'earlier.test' && !r.allowed);
      expect((await runTurn(core, chatId, 'fetch other.test')).error).toBeNull();
      const result = (server.requests[1] as RecordedRequest).body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)).join('\n');
      expect(result).toContain(`The network policy of profile "${profile}" refused a request.`);
      expect(result).toContain(`Berth's egress proxy refused other.test:443: it is not on the allowlist of profile "${profile}"`);
      expect(result).not.toContain('earlier.test');
      expect(result).toContain("open this chat's Network view in Berth and choose Allow: once (this host:port for 10 minutes), for this chat, or for the profile");
    } finally {
      await server.close();
    }
  });
});

async function waitForLog(match: (r: Awaited<ReturnType<BerthCore['network']['log']>>['requests'][number]) => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await core.network.log({ chatId })).requests.some(match)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('The proxy never reported the request.');
}

describe("egress 'none' and 'open'", () => {
  it("'none' has no network interface but loopback; 'open' reaches the host service (what the form warns about)", async () => {
    const none = (await h.profile(core, { image: NET_IMAGE, egress: 'none' })).name;
    const noneChat = (await core.chats.create({ profile: none })).id;
    expect((await run('ls /sys/class/net', noneChat)).output.trim()).toBe('lo');
    const open = (await h.profile(core, { image: NET_IMAGE, egress: 'open' })).name;
    const openChat = (await core.chats.create({ profile: open })).id;
    const gateway = (await run("ip route 2>/dev/null | awk '/default/ {print $3}' || true", openChat)).output.trim();
    const addrs = gateway ? [gateway] : hostAddresses();
    const r = await run(addrs.map((a) => `curl -sS --max-time 3 http://${a}:${hostPort}/`).join('; '), openChat);
    expect(r.output).toContain('host service reached');
  });
});

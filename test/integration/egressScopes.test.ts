/**
 * Where a refusal shows and how far an Allow reaches, against the real proxy and a pretend
 * internet of our own: the proxy's answer says who refused host:port, why and how to allow it
 * (body and X-Berth-Refused); "Allow once" and "Allow for this chat" let exactly that chat's
 * next request to that host:port through and no other chat's, revoking closes it again, "for
 * the profile" opens it for every chat; applying a change keeps another chat's open tunnel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { ALLOW_ONCE_MS } from '../../shared/egress.js';
import { Harness } from '../support/harness.js';
import { docker } from '../support/docker.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';
import { TUNNEL } from '../support/egressTunnel.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let inet: PretendInternet;
let core: BerthCore;
let profile: string;
let chatA: string;
let chatB: string;

async function run(chatId: string, command: string): Promise<string> {
  return (await core.sandbox.exec({ chatId, command, timeoutMs: 60_000 })).output;
}

/** HTTPS to blocked.test from the chat: the answer, or curl's refusal with the proxy's headers (-v). */
function https(chatId: string, host = 'blocked.test'): Promise<string> {
  return run(chatId, `curl -sS -k -v --max-time 10 https://${host}/ 2>&1; echo "rc=$?"`);
}

const PASSED = 'hello from blocked.test on 443';

beforeAll(async () => {
  inet = await startPretendInternet();
  core = h.core({ egress: { outsideNetwork: inet.network } });
  // berth-egress-proxy: an allowed name that resolves (in the proxy) to a private address.
  profile = (await h.profile(core, { image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test', 'berth-egress-proxy'] })).name;
  chatA = (await core.chats.create({ profile })).id;
  chatB = (await core.chats.create({ profile })).id;
}, 180_000);

afterAll(async () => {
  await h.cleanup();
  await inet?.stop();
}, 120_000);

describe("the proxy's refusal", () => {
  it('says who refused host:port, why, and how to allow it, in its body and a header tools can read', async () => {
    const plain = await run(chatA, 'curl -sS -i --max-time 10 http://blocked.test/');
    expect(plain).toMatch(/^HTTP\/1\.1 403/);
    expect(plain).toMatch(/^x-berth-refused: not-listed\r?$/im);
    expect(plain).toContain(`Berth's egress proxy refused blocked.test:80: it is not on the allowlist of profile "${profile}", nor allowed for this chat. To allow it, open this chat's Network view in Berth and choose Allow`);
    // A CONNECT's answer: curl shows the proxy's headers with -v (the body of a refused CONNECT it never prints).
    const tunnel = await https(chatA);
    expect(tunnel).toMatch(/< x-berth-refused: not-listed/i);
    expect(tunnel).toContain('CONNECT tunnel failed, response 403');
    const ip = await run(chatA, `curl -sS -i --max-time 10 http://${inet.webIp}/`);
    expect(ip).toMatch(/^x-berth-refused: ip-address\r?$/im);
    expect(ip).toContain(`refused ${inet.webIp}:80: it is an IP address`);
    const local = await run(chatA, 'curl -sS -i --max-time 10 http://berth-egress-proxy/');
    expect(local).toMatch(/^x-berth-refused: local-address\r?$/im);
    expect(local).toContain('refused berth-egress-proxy:80: its name resolves to a local or private address');
    // The Network view has the reason of each.
    await waitFor(async () => {
      const { requests } = await core.network.log({ chatId: chatA });
      const reason = (host: string, port: number) => requests.find((r) => r.host === host && r.port === port && !r.allowed)?.reason;
      return reason('blocked.test', 80) === 'not-listed' && reason('blocked.test', 443) === 'not-listed' && reason(inet.webIp, 80) === 'ip-address'
        && reason('berth-egress-proxy', 80) === 'local-address';
    }, 'the reasons in the Network view');
  });
});

describe('Allow: once, for this chat, for the profile', () => {
  it("once: the next request of that chat to that host:port passes, for 10 minutes; no other port, no other chat; revoking closes it", async () => {
    const before = Date.now();
    const { entry, grants, egressAllow } = await core.network.allow({ chatId: chatA, host: 'blocked.test', port: 443, scope: 'once' });
    expect(entry).toBe('blocked.test:443');
    expect(egressAllow).not.toContain('blocked.test:443');
    expect(grants).toHaveLength(1);
    expect(grants[0]?.scope).toBe('once');
    expect(grants[0]?.expiresAt).toBeGreaterThanOrEqual(before + ALLOW_ONCE_MS);
    expect(await https(chatA)).toContain(PASSED);
    expect(await run(chatA, 'curl -sS -f --max-time 10 http://blocked.test/; echo "rc=$?"')).toContain('rc=22');
    expect(await https(chatB)).toMatch(/x-berth-refused: not-listed/i);
    expect((await core.network.log({ chatId: chatA })).grants.map((g) => g.entry)).toEqual(['blocked.test:443']);
    expect((await core.network.log({ chatId: chatB })).grants).toEqual([]);

    expect((await core.network.revoke({ chatId: chatA, entry: 'blocked.test:443' })).grants).toEqual([]);
    const after = await https(chatA);
    expect(after).not.toContain(PASSED);
    expect(after).toMatch(/x-berth-refused: not-listed/i);
  }, 120_000);

  it("for this chat: passes for that chat only, and applying it keeps the other chat's open tunnel", async () => {
    // B opens a tunnel (HTTPS to an allowed host) and is answered once before A's change.
    await run(chatB, `cat > /tmp/tunnel.py <<'EOF'\n${TUNNEL}\nEOF\nnohup python3 /tmp/tunnel.py > /tmp/tunnel.log 2>&1 &`);
    await waitFor(async () => (await run(chatB, 'cat /tmp/tunnel.log')).includes('first True'), "B's tunnel to answer its first request", 30_000);

    const { grants } = await core.network.allow({ chatId: chatA, host: 'blocked.test', port: 443, scope: 'chat' });
    expect(grants).toEqual([{ entry: 'blocked.test:443', scope: 'chat', expiresAt: null }]);
    expect(await https(chatA)).toContain(PASSED);
    expect(await https(chatB)).toMatch(/x-berth-refused: not-listed/i);

    // The proxy reloaded for A's allowance; B's tunnel, open since before, still carries a request.
    await run(chatB, 'touch /tmp/go');
    const tunnel = await waitFor(async () => {
      const log = await run(chatB, 'cat /tmp/tunnel.log');
      return log.includes('second') && log;
    }, "B's tunnel's second answer", 30_000);
    expect(tunnel).toContain('second True');

    // A restarted sandbox (a new address) keeps the chat's allowance.
    await core.sandbox.stop({ chatId: chatA });
    expect(await https(chatA)).toContain(PASSED);
  }, 180_000);

  it('for the profile: every chat of it passes; a deleted chat takes its own allowances with it', async () => {
    const { entry, egressAllow } = await core.network.allow({ chatId: chatB, host: 'other.test', port: 443, scope: 'profile' });
    expect(entry).toBe('other.test:443');
    expect(egressAllow).toContain('other.test:443');
    for (const chat of [chatA, chatB]) expect(await https(chat, 'other.test')).toContain('hello from other.test on 443');

    await core.chats.delete({ chatId: chatA });
    const proxyId = await docker('ps', '-q', '--filter', `label=berth.instance=${core.instanceId}`, '--filter', 'label=berth.egress=proxy', '--filter', `label=berth.profile=${profile}`);
    expect(proxyId).toMatch(/^[0-9a-f]{12}$/);
    expect(await docker('exec', proxyId, 'cat', '/tmp/berth/chat-allow.lst')).not.toContain('blocked');
    expect(await https(chatB)).toMatch(/x-berth-refused: not-listed/i);
  }, 120_000);
});

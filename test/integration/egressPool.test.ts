/**
 * Many allowlist sandboxes at once (address pools): each sandbox's sealed network takes
 * a small subnet from Berth's own range instead of one of the daemon's ~30 default pools, so
 * the 32nd sandbox starts like the first; the networks stay apart; a removed network's subnet
 * is used again; a used-up range fails the start with an error that says what to do; deleting
 * the profile leaves none of its sandboxes, networks or proxy behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { DEFAULT_SUBNET_POOL } from '../../electron/main/policy/subnets.js';
import { proxyContainerName, sandboxNetworkName } from '../../electron/main/policy/egress.js';
import { BUSYBOX, docker } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';
import { rejectionCode } from '../support/tempDirs.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let inet: PretendInternet;

const SANDBOXES = 40;

beforeAll(async () => {
  inet = await startPretendInternet();
}, 120_000);

afterAll(async () => {
  await h.cleanup();
  await inet?.stop();
}, 300_000);

/** The subnet and the containers of a chat's sealed network, as the engine reports them. */
async function sealedNetwork(core: BerthCore, chatId: string): Promise<{ subnet: string; containers: { name: string; ip: string }[] }> {
  const name = sandboxNetworkName(core.instanceId, await keyOf(core, chatId));
  const info = JSON.parse(await docker('network', 'inspect', name)) as { IPAM: { Config: { Subnet: string }[] }; Containers: Record<string, { Name: string; IPv4Address: string }> }[];
  const net = info[0]!;
  return {
    subnet: net.IPAM.Config[0]?.Subnet ?? '',
    containers: Object.values(net.Containers).map((c) => ({ name: c.Name, ip: c.IPv4Address.split('/')[0] as string })),
  };
}

async function keyOf(core: BerthCore, chatId: string): Promise<string> {
  const id = (await core.sandbox.status({ chatId })).containerId as string;
  return (await docker('inspect', '-f', '{{index .Config.Labels "berth.key"}}', id)).trim();
}

function inRange(subnet: string, range: string): boolean {
  const toInt = (ip: string) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
  const [base, bits] = range.split('/') as [string, string];
  const size = 2 ** (32 - Number(bits));
  const ip = toInt(subnet.split('/')[0] as string);
  return ip >= toInt(base) && ip < toInt(base) + size;
}

describe('sealed networks from Berth\'s address range', () => {
  it(`starts ${SANDBOXES} allowlist sandboxes, each on its own /28 from the range, none reaching another`, async () => {
    const core = h.core({ egress: { outsideNetwork: inet.network } });
    const profile = (await h.profile(core, { image: BUSYBOX, egress: 'allowlist', egressAllow: ['allowed.test'] })).name;
    const chats: string[] = [];
    for (let i = 0; i < SANDBOXES; i++) chats.push((await core.chats.create({ profile })).id);
    // Started a few at a time, as a user opening many chats would.
    for (let i = 0; i < chats.length; i += 8) {
      await Promise.all(chats.slice(i, i + 8).map(async (chatId) => {
        const r = await core.sandbox.exec({ chatId, command: 'echo up', timeoutMs: 120_000 });
        expect(r.output, chatId).toContain('up');
      }));
    }
    const nets = await Promise.all(chats.map((chatId) => sealedNetwork(core, chatId)));
    const subnets = nets.map((n) => n.subnet);
    expect(new Set(subnets).size).toBe(SANDBOXES);
    for (const s of subnets) {
      expect(s).toMatch(/\/28$/);
      expect(inRange(s, DEFAULT_SUBNET_POOL.range), s).toBe(true);
    }
    // Each network holds the sandbox and the profile's proxy, nothing else.
    const proxy = proxyContainerName(core.instanceId, profile);
    for (const n of nets) expect(n.containers.map((c) => c.name).filter((c) => c !== proxy)).toHaveLength(1);

    // The last sandbox works: it reaches the allowed host through its proxy.
    const last = chats[SANDBOXES - 1] as string;
    expect((await core.sandbox.exec({ chatId: last, command: 'wget -qO- http://allowed.test/', timeoutMs: 30_000 })).output).toContain('hello from allowed.test');
    // A service in the last sandbox: the proxy (on every network of the profile) reaches it,
    // the first sandbox does not.
    await core.sandbox.exec({ chatId: last, command: 'mkdir -p /tmp/www && echo secret > /tmp/www/index.html && httpd -p 8080 -h /tmp/www', timeoutMs: 30_000 });
    const lastIp = nets[SANDBOXES - 1]!.containers.find((c) => c.name !== proxy)!.ip;
    expect(await docker('exec', proxy, 'bash', '-c', `exec 3<>/dev/tcp/${lastIp}/8080 && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`)).toContain('secret');
    const first = chats[0] as string;
    const probe = await core.sandbox.exec({ chatId: first, command: `nc -z -w 3 ${lastIp} 8080; echo "nc=$?"; wget -qO- -T 5 http://${lastIp}:8080/; echo "wget=$?"`, timeoutMs: 30_000 });
    expect(probe.output).toContain('nc=1');
    expect(probe.output).not.toContain('secret');

    // Deleting the profile takes every sandbox, sealed network and the proxy with it (the chats
    // go several at a time), and says as each chat goes.
    const announced = new Set<string>();
    const listening = core.onEvent((event, payload) => {
      const chatId = event === 'chats.changed' ? (payload as { chatId: string | null }).chatId : null;
      if (chatId !== null && chats.includes(chatId)) announced.add(chatId);
    });
    expect(await core.profiles.delete({ name: profile })).toEqual({ removedChats: SANDBOXES });
    listening.dispose();
    expect(announced.size).toBe(SANDBOXES);
    const mine = ['--filter', `label=berth.instance=${core.instanceId}`, '--filter', `label=berth.profile=${profile}`];
    expect(await docker('ps', '-aq', ...mine)).toBe('');
    expect(await docker('network', 'ls', '-q', ...mine)).toBe('');
  }, 900_000);

  it('uses a removed network\'s subnet again, and a used-up range fails the start saying what to do', async () => {
    // A two-network range of this test's own.
    const third = 200 + Math.floor(Math.random() * 50);
    const range = `10.213.${third}.0/27`;
    const core = h.core({ egress: { outsideNetwork: inet.network, subnetPool: { range, prefix: 28 } } });
    // The default profile (allowlist) keeps a warm sandbox, which would hold one of the range's
    // two subnets: no warm sandbox, and wait until its sealed network is gone.
    await core.profiles.update({ name: 'default', settings: { warmPool: 0 } });
    const sealedOfDefault = () => docker('network', 'ls', '-q', '--filter', `label=berth.instance=${core.instanceId}`, '--filter', 'label=berth.profile=default', '--filter', 'label=berth.egress=sandbox');
    await waitFor(async () => core.warmReady('default') === 0 && (await sealedOfDefault()) === '' && (await docker('ps', '-aq', '--filter', `label=berth.instance=${core.instanceId}`, '--filter', 'label=berth.profile=default', '--filter', 'label=berth.chat')) === '', 'the default profile\'s warm sandbox to go', 60_000);
    const profile = (await h.profile(core, { image: BUSYBOX, egress: 'allowlist', egressAllow: ['allowed.test'] })).name;
    const [a, b, c] = [(await core.chats.create({ profile })).id, (await core.chats.create({ profile })).id, (await core.chats.create({ profile })).id];
    await core.sandbox.exec({ chatId: a, command: ':' });
    await core.sandbox.exec({ chatId: b, command: ':' });
    const subnetA = (await sealedNetwork(core, a)).subnet;
    expect([subnetA, (await sealedNetwork(core, b)).subnet].sort()).toEqual([`10.213.${third}.0/28`, `10.213.${third}.16/28`]);

    const full = core.sandbox.exec({ chatId: c, command: ':' });
    expect(await rejectionCode(full)).toBe('network_failed');
    await expect(full).rejects.toThrow(new RegExp(`${range.replace(/\./g, '\\.')}.*used up`));

    await core.chats.delete({ chatId: a });
    await core.sandbox.exec({ chatId: c, command: ':' });
    expect((await sealedNetwork(core, c)).subnet).toBe(subnetA);
  }, 300_000);
});

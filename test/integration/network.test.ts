/** Per-profile networks: chats cannot reach each other, and a network problem stops the start. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { docker, dockerOk, engineSocket, inspect } from '../support/docker.js';
import { Harness, uniqueName } from '../support/harness.js';
import { DockerEngine } from '../../electron/main/engine/dockerEngine.js';
import { podmanChatNetwork } from '../../electron/main/engine/podmanNetworks.js';

/**
 * Docker keeps a profile's chats apart on one network with inter-container traffic off; Podman
 * cannot turn that off, so each chat gets its own netavark-isolated network (README: Podman).
 * The cases check each engine's own way, and the same thing: no chat reaches another.
 */
const onPodman = (await new DockerEngine({ kind: 'socket', socketPath: engineSocket() }).kind()).name === 'podman';

/** Podman's own view of a network (its Docker-compatible inspect does not report netavark's options). */
async function podmanNetwork(name: string): Promise<{ options?: Record<string, string>; labels?: Record<string, string> }> {
  const { stdout } = await promisify(execFile)('podman', ['--url', `unix://${engineSocket()}`, 'network', 'inspect', name]);
  return (JSON.parse(stdout) as { options?: Record<string, string>; labels?: Record<string, string> }[])[0]!;
}

const h = new Harness();
let core: BerthCore;
afterAll(() => h.cleanup());
beforeAll(() => {
  core = h.core();
});

const SERVE = 'mkdir -p /tmp/www && echo reached > /tmp/www/index.html && httpd -p 8080 -h /tmp/www && hostname -i';
const fetchFrom = (ip: string) => `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${ip} 8080 2>&1 | tail -1`;

describe('network isolation', () => {
  it('a chat in profile A reaches neither a second chat in A nor a chat in profile B', async () => {
    const a = (await h.profile(core)).name;
    const b = (await h.profile(core)).name;
    const a1 = await core.chats.create({ profile: a });
    const a2 = await core.chats.create({ profile: a });
    const b1 = await core.chats.create({ profile: b });

    const ipA2 = (await core.sandbox.exec({ chatId: a2.id, command: SERVE })).output.trim();
    const ipB1 = (await core.sandbox.exec({ chatId: b1.id, command: SERVE })).output.trim();
    expect(ipA2).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    // Positive control: each server answers inside its own container.
    expect((await core.sandbox.exec({ chatId: a2.id, command: fetchFrom('127.0.0.1') })).output).toContain('reached');
    expect((await core.sandbox.exec({ chatId: b1.id, command: fetchFrom('127.0.0.1') })).output).toContain('reached');

    const sameProfile = await core.sandbox.exec({ chatId: a1.id, command: fetchFrom(ipA2) });
    const otherProfile = await core.sandbox.exec({ chatId: a1.id, command: fetchFrom(ipB1) });
    expect(sameProfile.output).not.toContain('reached');
    expect(otherProfile.output).not.toContain('reached');

    const statusA = await core.sandbox.status({ chatId: a1.id });
    const statusA2 = await core.sandbox.status({ chatId: a2.id });
    const statusB = await core.sandbox.status({ chatId: b1.id });
    if (onPodman) {
      // Each chat on its own isolated network, labelled as Berth's and the chat's.
      expect(statusA.networkName).toBe(podmanChatNetwork(core.instanceId, a, statusA.key as string).name);
      expect(statusB.networkName).toBe(podmanChatNetwork(core.instanceId, b, statusB.key as string).name);
      expect(new Set([statusA.networkName, statusA2.networkName, statusB.networkName]).size).toBe(3);
      for (const status of [statusA, statusA2, statusB]) {
        const net = await podmanNetwork(status.networkName as string);
        expect(net.options?.isolate).toBe('true');
        expect(net.labels).toMatchObject({ 'berth.app': 'berth', 'berth.instance': core.instanceId, 'berth.key': status.key });
      }
      return;
    }
    expect(statusA.networkName).toBe(`berth-${a}`);
    expect(statusA2.networkName).toBe(`berth-${a}`);
    expect(statusB.networkName).toBe(`berth-${b}`);
    const net = await inspect<{ Options: Record<string, string>; Labels: Record<string, string>; IPAM: { Config: { Subnet: string }[] } }>(statusA.networkName as string);
    expect(net.Options['com.docker.network.bridge.enable_icc']).toBe('false');
    expect(net.Labels['berth.app']).toBe('berth');
    // Its subnet comes from Berth's own range, not from Docker's default pools (~30 networks for everyone).
    expect(net.IPAM.Config.map((c) => c.Subnet)).toEqual([expect.stringMatching(/^10\.213\.\d+\.\d+\/22$/)]);
  });

  it("a profile with network 'none' has no network interface but loopback", async () => {
    const p = (await h.profile(core, { egress: 'none' })).name;
    const chat = await core.chats.create({ profile: p });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'ls /sys/class/net' });
    expect(out.output.trim()).toBe('lo');
    expect((await core.sandbox.status({ chatId: chat.id })).networkName).toBeNull();
  });

  it('a network of that name that does not keep chats apart fails the start with an error naming it; nothing falls back', async () => {
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    // The network the chat would join: the profile's on Docker, the chat's own on Podman; made here as a plain bridge.
    // (Podman's Docker-compatible create always sets netavark's isolate option, so there it is made through Podman's own.)
    const net = onPodman ? podmanChatNetwork(core.instanceId, p, (await core.sandbox.status({ chatId: chat.id })).key as string).name : `berth-${p}`;
    if (onPodman) await promisify(execFile)('podman', ['--url', `unix://${engineSocket()}`, 'network', 'create', '--label', 'berth.app=berth', net]);
    else await docker('network', 'create', '--label', 'berth.app=berth', net);
    try {
      const failure = core.sandbox.exec({ chatId: chat.id, command: 'echo should-not-run' });
      await expect(failure).rejects.toMatchObject({ code: 'network_failed' });
      await expect(failure).rejects.toThrow(net);
      const status = await core.sandbox.status({ chatId: chat.id });
      expect(status.state).toBe('error');
      expect(status.error?.message).toContain(net);
      expect(await docker('ps', '-aq', '--filter', `label=berth.chat=${chat.id}`)).toBe('');
    } finally {
      await dockerOk('network', 'rm', net);
    }
  });

  it('a profile name is sanitized into its network name, and one with nothing usable is refused', async () => {
    const raw = `${uniqueName('A b')}/c`;
    const view = await core.profiles.create({ name: raw, image: 'berth-test:busybox', egress: 'open' });
    expect(view.networkName).toMatch(/^berth-a-b-[0-9a-f]{8}-c$/);
    await expect(core.profiles.create({ name: '///' })).rejects.toMatchObject({ code: 'invalid_request' });
    // Two profiles never share one network: a name that slugs to an existing one is refused.
    await expect(core.profiles.create({ name: raw.toUpperCase(), egress: 'open' })).rejects.toThrow(/both would use the Docker network/);
  });

  it('two concurrent creates of one network make one network', async () => {
    const name = `berth-${uniqueName('race')}`;
    const e1 = new DockerEngine({ kind: 'socket', socketPath: engineSocket() });
    const e2 = new DockerEngine({ kind: 'socket', socketPath: engineSocket() });
    try {
      await Promise.all([e1.ensureNetwork(name, { 'berth.app': 'berth' }), e2.ensureNetwork(name, { 'berth.app': 'berth' }), e1.ensureNetwork(name, { 'berth.app': 'berth' })]);
      const ids = (await docker('network', 'ls', '-q', '--filter', `name=^${name}$`)).split('\n').filter(Boolean);
      expect(ids).toHaveLength(1);
    } finally {
      for (const id of (await docker('network', 'ls', '-q', '--filter', `name=^${name}$`)).split('\n').filter(Boolean)) await dockerOk('network', 'rm', id);
    }
  });
});

/**
 * The core's key cases against Podman's Docker-compatible API, rootful and rootless, through
 * DOCKER_HOST as a user would point Berth at it (scripts/podman-setup.sh starts both sockets
 * and loads the test images). BERTH_TEST_ENGINE=podman-rootful or podman-rootless runs one.
 * A Podman that cannot enforce the sandbox's limits (rootless on cgroup v1, as on this machine)
 * must refuse every sandbox with a clear error: that is what is tested there.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { DockerEngine, type EngineKind } from '../../electron/main/engine/dockerEngine.js';
import { missingLimitControllers } from '../../electron/main/engine/engineKind.js';
import { docker } from '../support/docker.js';
import { Harness, SANDBOX_UID } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const SOCKETS = {
  'podman-rootful': '/run/podman/podman.sock',
  'podman-rootless': '/run/berthpod/podman/podman.sock',
} as const;
type PodmanEngine = keyof typeof SOCKETS;

const chosen = process.env.BERTH_TEST_ENGINE;
const engines = (Object.keys(SOCKETS) as PodmanEngine[]).filter((e) => !chosen?.startsWith('podman') || e === chosen);

/** What each socket is, or why it cannot be used (asked before the cases are declared). */
const kinds = new Map<PodmanEngine, EngineKind | string>();
for (const e of engines) {
  const kind = await new DockerEngine({ kind: 'socket', socketPath: SOCKETS[e] }).kind().catch((error: Error) => error.message);
  kinds.set(e, kind);
  if (typeof kind === 'string') {
    const why = `${e} does not answer on ${SOCKETS[e]} (${kind}): run \`bash scripts/podman-setup.sh\`.`;
    if (process.env.BERTH_REQUIRE_PODMAN) throw new Error(why);
    console.warn(`podman.test.ts: skipping ${e}: ${why}`);
  }
}

for (const e of engines) {
  const kind = kinds.get(e);
  const usable = typeof kind === 'object';
  const canLimit = usable && missingLimitControllers(kind).length === 0;

  describe.skipIf(!usable)(`${e} (${SOCKETS[e]})`, () => {
    // Made when the cases run, not when they are declared: a skipped engine leaves no folder behind.
    let h: Harness;
    /**
     * The temp folder the core sees here (TMPDIR), so that what it leaves there can be counted:
     * the seccomp profile file Podman is given. Open to all, as /tmp is, for rootless Podman's user.
     */
    let tmp: string;
    const seccompLeftovers = () => fs.readdirSync(tmp).filter((name) => name.startsWith('berth-seccomp-'));
    let core: BerthCore;
    let profile: string;
    const before = process.env.DOCKER_HOST;
    const beforeTmp = process.env.TMPDIR;
    const output = new Map<string, string>();

    beforeAll(async () => {
      h = new Harness();
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-podman-tmp-'));
      fs.chmodSync(tmp, 0o1777);
      // The harness's docker CLI and the core both go to this Podman.
      process.env.DOCKER_HOST = `unix://${SOCKETS[e]}`;
      process.env.TMPDIR = tmp;
      core = h.core({ env: { ...process.env } });
      core.onEvent((event, payload) => {
        if (event !== 'terminal.data') return;
        const p = payload as { terminalId: string; data: string };
        output.set(p.terminalId, (output.get(p.terminalId) ?? '') + p.data);
      });
      profile = (await h.profile(core, { limits: { memoryMb: 256, cpus: 1, pids: 128 } })).name;
    });
    afterAll(async () => {
      await h.cleanup();
      process.env.DOCKER_HOST = before;
      if (beforeTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = beforeTmp;
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('is told apart from Docker', () => {
      expect(kind).toMatchObject({ name: 'podman', rootless: e === 'podman-rootless' });
    });

    if (!canLimit) {
      const facts = usable && kind.name === 'podman' ? `cgroup ${kind.cgroupVersion}, controllers: ${kind.cgroupControllers.join(',') || 'none'}` : '';
      it(`refuses every sandbox: this Podman cannot enforce the limits (${facts})`, async () => {
        const chat = await core.chats.create({ profile });
        await expect(core.sandbox.exec({ chatId: chat.id, command: 'true' })).rejects.toMatchObject({
          code: 'container_failed',
          message: expect.stringMatching(/cannot limit a sandbox's memory, pids, cpu/),
        });
        // Nothing was created to be refused later: the check comes before the create.
        expect(await docker('ps', '-aq', '--filter', `label=berth.instance=${core.instanceId}`)).toBe('');
      });
      return;
    }

    const sh = async (chatId: string, command: string) => (await core.sandbox.exec({ chatId, command })).output;
    const containerOf = async (chatId: string) => (await core.sandbox.status({ chatId })).containerId as string;
    const addressOf = async (chatId: string) => {
      const info = JSON.parse(await docker('inspect', await containerOf(chatId))) as { NetworkSettings: { Networks: Record<string, { IPAddress: string }> } }[];
      const nets = Object.entries(info[0]!.NetworkSettings.Networks);
      expect(nets).toHaveLength(1);
      return { network: nets[0]![0], ip: nets[0]![1].IPAddress };
    };

    it('runs a chat hardened: non-root, no capabilities, no-new-privileges, its limits enforced, labelled', async () => {
      const chat = await core.chats.create({ profile });
      const out = await sh(
        chat.id,
        'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status; ' +
          'cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max; ' +
          'cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes; ' +
          'cat /sys/fs/cgroup/cpu.max 2>/dev/null || cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us',
      );
      const [uid, capEff, capBnd, nnp, pids, memory, cpu] = out.trim().split('\n');
      expect(Number(uid)).toBe(SANDBOX_UID);
      expect(capEff).toMatch(/^CapEff:\s+0+$/);
      expect(capBnd).toMatch(/^CapBnd:\s+0+$/);
      expect(nnp).toMatch(/^NoNewPrivs:\s+1$/);
      expect(pids).toBe('128');
      expect(memory).toBe(String(256 * 1024 * 1024));
      expect(cpu).toMatch(/^100000( 100000)?$/);
      const labels = JSON.parse(await docker('inspect', '--format', '{{json .Config.Labels}}', await containerOf(chat.id))) as Record<string, string>;
      expect(labels).toMatchObject({ 'berth.app': 'berth', 'berth.instance': core.instanceId, 'berth.profile': profile, 'berth.chat': chat.id });
    });

    it("enforces Berth's seccomp profile (no set-uid file), again when its container starts anew, and leaves no profile file in the temp folder", async () => {
      const chat = await core.chats.create({ profile });
      // Docker's and Podman's default profiles allow a set-uid bit; Berth's does not.
      const probe = 'cp /bin/true /tmp/prog; chmod u+s /tmp/prog 2>/dev/null && echo "chmod u+s made it"; chmod 700 /tmp/prog && echo ordinary ok';
      const first = await sh(chat.id, probe);
      expect(first).not.toContain('made it');
      expect(first).toContain('ordinary ok');
      // Podman read the profile when it created the container: nothing of it stays on the host.
      expect(seccompLeftovers()).toEqual([]);
      const container = await containerOf(chat.id);
      await core.sandbox.stop({ chatId: chat.id });
      const again = await sh(chat.id, probe);
      expect(await containerOf(chat.id)).toBe(container);
      expect(again).not.toContain('made it');
      expect(again).toContain('ordinary ok');
      expect(seccompLeftovers()).toEqual([]);
    });

    it('keeps two chats of one profile apart: each on its own isolated network; a chat reaches only itself', async () => {
      const a = await core.chats.create({ profile, title: 'A' });
      const b = await core.chats.create({ profile, title: 'B' });
      await sh(b.id, 'true');
      await sh(a.id, 'echo served-by-a > /tmp/index.html && httpd -p 8080 -h /tmp && echo up');
      const inA = await addressOf(a.id);
      const inB = await addressOf(b.id);
      expect(inA.network).not.toBe(inB.network);
      const fetchA = `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${inA.ip} 8080 | grep served || echo unreachable`;
      // The control: the server answers, from its own chat.
      expect(await sh(a.id, fetchA)).toContain('served-by-a');
      expect(await sh(b.id, fetchA)).toContain('unreachable');
    });

    it("cannot reach a service on the host's loopback (as on Docker)", async () => {
      const server = http.createServer((_req, res) => res.end('host-secret'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const chat = await core.chats.create({ profile });
        const out = await sh(
          chat.id,
          `gw=$(ip route | awk '/^default/ {print $3}'); echo gw=$gw; ` +
            `for h in "$gw" host.containers.internal 127.0.0.1; do wget -q -T 3 -O- "http://$h:${port}/" 2>/dev/null || echo "no:$h"; done`,
        );
        expect(out).toMatch(/gw=\d+\.\d+\.\d+\.\d+/);
        expect(out).not.toContain('host-secret');
        expect(out.match(/^no:/gm)).toHaveLength(3);
      } finally {
        server.close();
      }
    });

    it('with egress "none" has no network at all', async () => {
      const none = (await h.profile(core, { egress: 'none' })).name;
      const chat = await core.chats.create({ profile: none });
      expect((await sh(chat.id, 'ls /sys/class/net')).trim()).toBe('lo');
    });

    it('refuses egress "allowlist" with a clear error (Podman cannot seal the network it needs)', async () => {
      const allow = (await h.profile(core, { egress: 'allowlist' })).name;
      const chat = await core.chats.create({ profile: allow });
      await expect(core.sandbox.exec({ chatId: chat.id, command: 'true' })).rejects.toMatchObject({
        code: 'network_failed',
        message: expect.stringMatching(/not available on Podman/),
      });
      expect(await docker('ps', '-aq', '--filter', `label=berth.chat=${chat.id}`)).toBe('');
    });

    it('opens a terminal in the chat\'s container', async () => {
      const chat = await core.chats.create({ profile });
      const term = await core.terminal.open({ chatId: chat.id, cols: 90, rows: 20 });
      await core.terminal.input({ terminalId: term.terminalId, data: 'echo term-$((6*7)); stty size\n' });
      await waitFor(async () => /term-42[\s\S]*20 90/.test(output.get(term.terminalId) ?? ''), 'the terminal output');
    });

    it('mounts a read-write folder (files are the host user\'s) and a review copy (the host changes only on Apply)', async () => {
      const chat = await core.chats.create({ profile });
      const rw = h.workspace('rw');
      const reviewed = h.workspace('reviewed', { 'a.txt': 'host\n' });
      await core.workspace.attach({ chatId: chat.id, path: rw, mode: 'readwrite' });
      const attached = await core.workspace.attach({ chatId: chat.id, path: reviewed });
      expect(attached.attachment.mode).toBe('review');
      await sh(chat.id, 'cd /workspace/rw && echo from-podman > new.txt; cd /workspace/reviewed && echo chat > a.txt');
      expect(fs.readFileSync(path.join(rw, 'new.txt'), 'utf8')).toBe('from-podman\n');
      expect(fs.statSync(path.join(rw, 'new.txt')).uid).toBe(SANDBOX_UID);
      expect(fs.readFileSync(path.join(reviewed, 'a.txt'), 'utf8')).toBe('host\n');
      expect((await core.review.apply({ chatId: chat.id, hostPath: attached.attachment.hostPath })).ok).toBe(true);
      expect(fs.readFileSync(path.join(reviewed, 'a.txt'), 'utf8')).toBe('chat\n');
    });

    it('a deleted chat takes its network with it, and the run leaves nothing on the engine', async () => {
      const chat = await core.chats.create({ profile });
      await sh(chat.id, 'true');
      const { network } = await addressOf(chat.id);
      await core.chats.delete({ chatId: chat.id });
      expect((await docker('network', 'ls', '--format', '{{.Name}}')).split('\n')).not.toContain(network);
      await h.cleanup();
      expect(await docker('ps', '-aq', '--filter', `label=berth.instance=${core.instanceId}`)).toBe('');
      expect(await docker('network', 'ls', '-q', '--filter', `label=berth.instance=${core.instanceId}`)).toBe('');
    });
  });
}

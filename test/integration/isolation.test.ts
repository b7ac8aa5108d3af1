/** What a chat's sandbox can see and do, proved live against the real engine. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { engineSocket, inspect } from '../support/docker.js';
import { Harness, SANDBOX_GID, SANDBOX_UID } from '../support/harness.js';
import { DockerEngine } from '../../electron/main/engine/dockerEngine.js';

/** Podman's inspect reports the same hardening in its own shape (README: Podman); the cases read each engine's. */
const onPodman = (await new DockerEngine({ kind: 'socket', socketPath: engineSocket() }).kind()).name === 'podman';

const h = new Harness();
let core: BerthCore;
let profile: string;

beforeAll(async () => {
  core = h.core();
  profile = (await h.profile(core)).name;
});
afterAll(() => h.cleanup());

describe('a chat sees only its own folder', () => {
  it('two chats each see only the folder attached to them', async () => {
    const a = await core.chats.create({ profile, title: 'A' });
    const b = await core.chats.create({ profile, title: 'B' });
    await core.workspace.attach({ chatId: a.id, path: h.workspace('alpha', { 'only-in-a.txt': 'a' }), mode: 'readwrite' });
    await core.workspace.attach({ chatId: b.id, path: h.workspace('beta', { 'only-in-b.txt': 'b' }), mode: 'readwrite' });

    const inA = await core.sandbox.exec({ chatId: a.id, command: 'ls /workspace' });
    const inB = await core.sandbox.exec({ chatId: b.id, command: 'ls /workspace' });
    expect(inA.output.trim()).toBe('only-in-a.txt');
    expect(inB.output.trim()).toBe('only-in-b.txt');
    expect(inA.cwd).toBe('/workspace');

    // Neither container has the other's folder anywhere in its mounts.
    const statusA = await core.sandbox.status({ chatId: a.id });
    const mounts = (await inspect<{ Mounts: { Source: string }[] }>(statusA.containerId as string)).Mounts.map((m) => m.Source);
    expect(mounts.some((s) => s.includes('beta'))).toBe(false);
  });

  it('never mounts process-global state: not process.cwd(), not environment variables', async () => {
    const decoy = h.workspace('decoy', { 'secret.txt': 'from the process cwd' });
    const before = process.cwd();
    process.env.BERTH_WORKSPACE = decoy;
    process.env.TERMINAL_CWD = decoy;
    process.chdir(decoy);
    try {
      const chat = await core.chats.create({ profile });
      const out = await core.sandbox.exec({ chatId: chat.id, command: 'ls -a /workspace 2>&1; pwd' });
      expect(out.output).not.toContain('secret.txt');
      expect(out.cwd).toBe('/home/berth');
      const id = (await core.sandbox.status({ chatId: chat.id })).containerId as string;
      const info = await inspect<{ Mounts: { Source: string; Destination: string }[] }>(id);
      expect(info.Mounts.map((m) => m.Destination)).toEqual(['/home/berth']);
    } finally {
      process.chdir(before);
      delete process.env.BERTH_WORKSPACE;
      delete process.env.TERMINAL_CWD;
    }
  });

  it("a folder attached in one chat is not mounted in another chat that didn't attach it", async () => {
    const picked = h.workspace('picked', { 'picked.txt': 'x' });
    const first = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: first.id, path: picked, mode: 'readwrite' });
    const second = await core.chats.create({ profile });
    const out = await core.sandbox.exec({ chatId: second.id, command: 'ls /workspace 2>&1 || true' });
    expect(out.output).not.toContain('picked.txt');
  });
});

describe('files and privileges', () => {
  it('a file written from the container belongs to the host user (the sandbox uid when Berth runs as root)', async () => {
    const ws = h.workspace('owned');
    const chat = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'echo made-in-sandbox > note.txt && id -u' });
    expect(out.exitCode).toBe(0);
    expect(Number(out.output.trim())).not.toBe(0);
    const stat = fs.statSync(path.join(ws, 'note.txt'));
    expect(fs.readFileSync(path.join(ws, 'note.txt'), 'utf8')).toBe('made-in-sandbox\n');
    expect([stat.uid, stat.gid]).toEqual([SANDBOX_UID, SANDBOX_GID]);
  });

  it('cannot chown, and a setuid-root program gains nothing (no-new-privileges, no capabilities)', async () => {
    const ws = h.workspace('privs', { 'mine.txt': 'x' });
    const chat = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    const chown = await core.sandbox.exec({ chatId: chat.id, command: 'chown 0:0 mine.txt' });
    expect(chown.exitCode).not.toBe(0);
    expect(fs.statSync(path.join(ws, 'mine.txt')).uid).toBe(SANDBOX_UID);

    // The test image carries a setuid-root probe; without no-new-privileges it would run as euid 0.
    const suid = await core.sandbox.exec({ chatId: chat.id, command: 'ls -l /bin/suid-probe; /bin/suid-probe' });
    expect(suid.output).toMatch(/^-rwsr-xr-x/);
    expect(suid.output).toContain(`euid=${SANDBOX_UID}\n`);
    const caps = await core.sandbox.exec({ chatId: chat.id, command: 'grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status; grep NoNewPrivs /proc/self/status' });
    expect(caps.output).toMatch(/CapEff:\s+0000000000000000/);
    expect(caps.output).toMatch(/CapBnd:\s+0000000000000000/);
    expect(caps.output).toMatch(/NoNewPrivs:\s+1/);
  });

  it('a read-only attachment cannot be written, and paths with ":" and spaces mount as they are', async () => {
    const odd = h.workspace('my project: v2', { 'keep.txt': 'keep' });
    const chat = await core.chats.create({ profile });
    const attached = await core.workspace.attach({ chatId: chat.id, path: odd, readOnly: true });
    expect(attached.attachment).toMatchObject({ hostPath: odd, containerPath: '/workspace', readOnly: true });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'cat keep.txt; echo x > new.txt' });
    expect(out.output).toContain('keep');
    expect(out.exitCode).not.toBe(0);
    expect(fs.existsSync(path.join(odd, 'new.txt'))).toBe(false);
  });

  it('is created hardened: no capabilities, no-new-privileges, non-root, limits, init, tmpfs, Mounts not Binds, labels', async () => {
    const ws = h.workspace('hardened');
    const chat = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    await core.sandbox.exec({ chatId: chat.id, command: ':' });
    const status = await core.sandbox.status({ chatId: chat.id });
    type Info = {
      Config: { User: string; Labels: Record<string, string> };
      HostConfig: Record<string, unknown> & { Binds: unknown; Mounts: { Type: string; Source: string; Target: string; BindOptions?: { NonRecursive?: boolean } }[] };
    };
    const info = await inspect<Info>(status.containerId as string);
    expect(info.Config.User).toBe(`${SANDBOX_UID}:${SANDBOX_GID}`);
    expect(info.Config.Labels).toMatchObject({
      'berth.app': 'berth', 'berth.instance': core.instanceId, 'berth.profile': profile, 'berth.chat': chat.id, 'berth.key': status.key,
    });
    if (onPodman) return podmanHardened(info as unknown as PodmanInfo, status.containerId as string, status.networkName as string, ws);
    expect(info.HostConfig.CapDrop).toEqual(['ALL']);
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
    expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges:true');
    expect(info.HostConfig.Privileged).toBe(false);
    expect(info.HostConfig.Init).toBe(true);
    expect(info.HostConfig.PidsLimit).toBeGreaterThan(0);
    expect(info.HostConfig.Memory).toBeGreaterThan(0);
    expect(info.HostConfig.NanoCpus).toBeGreaterThan(0);
    expect(info.HostConfig.NetworkMode).toBe(status.networkName);
    expect(info.HostConfig.NetworkMode).not.toBe('host');
    expect(info.HostConfig.PidMode).not.toBe('host');
    expect(info.HostConfig.IpcMode).toBe('private');
    expect(info.HostConfig.Binds ?? null).toBeNull();
    expect(info.HostConfig.Tmpfs).toHaveProperty('/tmp');
    const workspaceMount = info.HostConfig.Mounts.find((m) => m.Target === '/workspace');
    expect(workspaceMount).toMatchObject({ Type: 'bind', Source: ws, BindOptions: { NonRecursive: true } });
    expect(JSON.stringify(info.HostConfig.Mounts)).not.toContain('docker.sock');
  });
});

type PodmanInfo = {
  HostConfig: Record<string, unknown> & { CapDrop: string[]; Binds: string[] | null; Tmpfs: Record<string, string> };
  NetworkSettings: { Networks: Record<string, unknown> };
};

/**
 * The same hardening as Podman's compatible inspect shows it: CapDrop lists Podman's default
 * capabilities one by one (its own inspect: no bounding capabilities left), the mounts come back
 * as Binds strings (`bind`, not `rbind`: not recursive), NetworkMode says `bridge` with the
 * chat's own network under Networks, and IpcMode `shareable` (a private namespace, which only
 * someone with the engine could join).
 */
async function podmanHardened(info: PodmanInfo, id: string, network: string, ws: string): Promise<void> {
  const hc = info.HostConfig;
  expect(hc.CapDrop).toEqual(expect.arrayContaining(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID', 'NET_RAW', 'KILL']));
  const own = JSON.parse((await promisify(execFile)('podman', ['--url', `unix://${engineSocket()}`, 'inspect', id])).stdout) as { BoundingCaps: string[] | null; EffectiveCaps: string[] | null }[];
  expect(own[0]!.BoundingCaps ?? []).toEqual([]);
  expect(own[0]!.EffectiveCaps ?? []).toEqual([]);
  expect(hc.CapAdd ?? []).toEqual([]);
  expect(hc.SecurityOpt).toContain('no-new-privileges');
  expect(hc.Privileged).toBe(false);
  expect(hc.Init).toBe(true);
  expect(hc.PidsLimit).toBeGreaterThan(0);
  expect(hc.Memory).toBeGreaterThan(0);
  expect(hc.NanoCpus).toBeGreaterThan(0);
  expect(Object.keys(info.NetworkSettings.Networks)).toEqual([network]);
  expect(hc.PidMode).toBe('private');
  expect(hc.IpcMode).toBe('shareable');
  expect(hc.Tmpfs).toHaveProperty('/tmp');
  expect(hc.Binds).toContain(`${ws}:/workspace:bind,rw,rprivate`);
  expect((hc.Binds ?? []).some((b) => /:rbind|,rbind/.test(b))).toBe(false);
  expect(JSON.stringify(hc.Binds)).not.toContain('docker.sock');
}

/**
 * Per-profile engines against real daemons: an sshd on 127.0.0.1 in front of this machine's
 * engine (ssh://, through ssh2 as docker-modem uses it). An ssh:// engine is treated as one
 * whose files are not this computer's: nothing local is bound there; folders are copies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../electron/main/engine/dockerEngine.js';
import { applyChanges, diffCopy, fetchCopy } from '../../electron/main/workspace/remoteCopy.js';
import { docker, inspect } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { TestSshd, sshdMissing } from '../support/sshd.js';

const h = new Harness();
const missing = sshdMissing();
if (missing) console.warn(`engines.test.ts: skipping the ssh:// engine tests: ${missing}`);
const sshd = new TestSshd();
const instances: string[] = [];

beforeAll(async () => {
  if (!missing) await sshd.start();
});
afterAll(async () => {
  // A test that failed while the engine was down: bring it back so its chats can be removed there.
  if (!missing && !sshd.running) await sshd.start().catch(() => undefined);
  await h.cleanup();
  // Volumes a remote engine's chats used (homes, folder copies), should a test fail before deleting its chat.
  for (const instance of instances) {
    const names = (await docker('volume', 'ls', '-q', '--filter', `label=berth.instance=${instance}`)).split('\n').filter(Boolean);
    if (names.length) await docker('volume', 'rm', '-f', ...names);
  }
  await sshd.dispose();
}, 240_000);

type Mounts = { Mounts: { Type: string; Source: string; Destination: string }[] };

describe.skipIf(missing !== null)('a profile on an ssh:// engine', () => {
  it('runs its chat there, shows which engine, binds no local path, and works on a copy that comes back only on apply', async () => {
    const core = h.core();
    instances.push(core.instanceId);
    const profile = await h.profile(core, { engine: { kind: 'ssh', url: sshd.url, identityFile: sshd.identityFile } });
    const host = h.workspace('site', { 'a.txt': 'original\n' });
    const chat = await core.chats.create({ profile: profile.name });
    await core.workspace.attach({ chatId: chat.id, path: host });

    const seen = await core.sandbox.exec({ chatId: chat.id, command: 'cat /workspace/a.txt && id -u && echo changed > a.txt && echo new > b.txt && ls -n $HOME >/dev/null && touch $HOME/ok' });
    expect({ exitCode: seen.exitCode, output: seen.output }).toMatchObject({ exitCode: 0, output: expect.stringContaining('original') });

    // Which engine: the sandbox details and the profile's engine status both name it.
    const status = await core.sandbox.status({ chatId: chat.id });
    expect(status.engine).toMatchObject({ kind: 'ssh', label: sshd.url, remote: true });
    const engineStatus = await core.engine.status({ profile: profile.name });
    expect(engineStatus).toMatchObject({ state: 'ok', engine: { kind: 'ssh' } });

    // The engine's own view of the container: volumes only, never a path of this computer.
    const mounts = (await inspect<Mounts>(status.containerId as string)).Mounts;
    expect(mounts.map((m) => m.Type).sort()).toEqual(['volume', 'volume']);
    expect(mounts.map((m) => m.Destination).sort()).toEqual(['/home/berth', '/workspace']);
    expect(mounts.some((m) => m.Source.startsWith(host) || m.Source.startsWith(h.root))).toBe(false);

    // The host folder is untouched until apply.
    expect(fs.readFileSync(path.join(host, 'a.txt'), 'utf8')).toBe('original\n');
    expect(fs.existsSync(path.join(host, 'b.txt'))).toBe(false);

    // Apply: read the copy back through the archive API, list its changes, bring them home.
    const engine = new DockerEngine({ kind: 'ssh', host: sshd.url, identityFile: sshd.identityFile });
    const scratch = fs.mkdtempSync(path.join(h.root, 'scratch-'));
    const copy = await fetchCopy({ engine, containerId: status.containerId as string, containerPath: '/workspace' }, scratch);
    const changes = diffCopy(host, copy);
    expect(changes).toEqual([
      { path: 'a.txt', kind: 'modified' },
      { path: 'b.txt', kind: 'added' },
    ]);
    expect(applyChanges(host, copy, changes)).toEqual({ applied: ['a.txt', 'b.txt'], refused: [] });
    expect(fs.readFileSync(path.join(host, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(fs.readFileSync(path.join(host, 'b.txt'), 'utf8')).toBe('new\n');

    // Deleting the chat takes its volumes on that engine with it.
    await core.chats.delete({ chatId: chat.id });
    expect(await docker('volume', 'ls', '-q', '--filter', `label=berth.instance=${core.instanceId}`)).toBe('');
  }, 180_000);

  it('a running chat stays on its engine when the profile changes engine, says so, and moves only once stopped', async () => {
    const core = h.core();
    instances.push(core.instanceId);
    const profile = await h.profile(core);
    const chat = await core.chats.create({ profile: profile.name });
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'echo one' })).output).toContain('one');
    const before = await core.sandbox.status({ chatId: chat.id });
    expect(before.engine?.kind).toBe('default');

    await core.profiles.update({ name: profile.name, settings: { engine: { kind: 'ssh', url: sshd.url, identityFile: sshd.identityFile } } });
    const still = await core.sandbox.exec({ chatId: chat.id, command: 'echo two' });
    expect(still.output).toContain('two');
    expect(still.notices.join(' ')).toMatch(/keeps running on .*although its profile now uses ssh:\/\/root@127\.0\.0\.1/);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(before.containerId);

    await core.sandbox.stop({ chatId: chat.id });
    const moved = await core.sandbox.exec({ chatId: chat.id, command: 'echo three' });
    expect(moved.output).toContain('three');
    expect(moved.notices.join(' ')).toMatch(/moved from .* to ssh:\/\/root@127\.0\.0\.1/);
    const after = await core.sandbox.status({ chatId: chat.id });
    expect(after.engine?.kind).toBe('ssh');
    expect(after.containerId).not.toBe(before.containerId);
    // The old container is gone, not left behind on the old engine.
    expect(await docker('ps', '-aq', '--filter', `id=${before.containerId}`)).toBe('');
    await core.chats.delete({ chatId: chat.id });
  }, 180_000);
  // Not in the suite yet: "the remote engine stops mid-chat, the chat says so and recovers" hung in
  // clean-up after sshd came back (see /work/notes/engines.md); to be finished, not skipped silently.
});

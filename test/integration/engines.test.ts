/**
 * Per-profile engines against real daemons: an sshd on 127.0.0.1 in front of this machine's
 * engine (ssh://, through ssh2 as docker-modem uses it). An ssh:// engine is treated as one
 * whose files are not this computer's: nothing local is bound there; folders are copies.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineStatus } from '../../shared/contract.js';
import { docker, inspect, removeInstanceVolumes } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { TestSshd, sshdMissing } from '../support/sshd.js';
import { waitFor } from '../support/waitFor.js';
import { remoteReviewScenario, type Mounts } from '../support/remoteScenario.js';

const h = new Harness();
const missing = sshdMissing();
if (missing) console.warn(`engines.test.ts: skipping the ssh:// engine tests: ${missing}`);
const sshd = new TestSshd();
const instances: string[] = [];
/** A core that trusts the test sshd's host key, as the user's known_hosts would after a first `ssh`. */
const trusting = () => h.core({ knownHostsFiles: [sshd.knownHostsFile] });

beforeAll(async () => {
  if (!missing) await sshd.start();
});
afterAll(async () => {
  // A test that failed while the engine was down: bring it back so its chats can be removed there.
  if (!missing && !sshd.running) await sshd.start().catch(() => undefined);
  await h.cleanup();
  await removeInstanceVolumes(instances);
  await sshd.dispose();
}, 240_000);


describe.skipIf(missing !== null)('a profile on an ssh:// engine', () => {
  it('runs its chat there, shows which engine, binds no local path, and works on a Review copy that comes back only on Apply', async () => {
    const core = trusting();
    instances.push(core.instanceId);
    await remoteReviewScenario(h, core, { kind: 'ssh', url: sshd.url, identityFile: sshd.identityFile }, async (id) => (await inspect<{ Mounts: Mounts }>(id)).Mounts, 'ssh');
    // Deleting the chat took its volumes on that engine with it.
    expect(await docker('volume', 'ls', '-q', '--filter', `label=berth.instance=${core.instanceId}`)).toBe('');
  }, 240_000);

  it('a running chat stays on its engine when the profile changes engine, says so, and moves only once stopped', async () => {
    const core = trusting();
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
    const pinned = await core.sandbox.status({ chatId: chat.id });
    expect(pinned.containerId).toBe(before.containerId);
    // The sandbox details say where it runs and that the profile names another engine until it restarts.
    expect(pinned.engine?.kind).toBe('default');
    expect(pinned.profileEngine).toMatchObject({ kind: 'ssh', label: sshd.url.replace(/\/$/, '') });

    await core.sandbox.stop({ chatId: chat.id });
    const moved = await core.sandbox.exec({ chatId: chat.id, command: 'echo three' });
    expect(moved.output).toContain('three');
    expect(moved.notices.join(' ')).toMatch(/moved from .* to ssh:\/\/root@127\.0\.0\.1/);
    const after = await core.sandbox.status({ chatId: chat.id });
    expect(after.engine?.kind).toBe('ssh');
    expect(after.profileEngine).toBeNull();
    expect(after.containerId).not.toBe(before.containerId);
    // The old container is gone, not left behind on the old engine.
    expect(await docker('ps', '-aq', '--filter', `id=${before.containerId}`)).toBe('');
    await core.chats.delete({ chatId: chat.id });
  }, 180_000);

  it('the profile form (a client) checks the ssh engine and sets it; files that are not what the field says are refused', async () => {
    const core = trusting();
    instances.push(core.instanceId);
    const client = core.connectClient();
    try {
      const engine = { kind: 'ssh' as const, url: sshd.url, identityFile: sshd.identityFile };
      // Check connection: a key file not yet saved with the profile is not read; through the agent, a real ping over SSH.
      expect(await client.call('engine.check', { engine })).toMatchObject({ state: 'unreachable', message: expect.stringMatching(/saved with the profile/) });
      const wrong = { ...engine, url: sshd.url.replace(/:(\d+)/, ':1'), identityFile: null };
      expect(await client.call('engine.check', { engine: wrong })).toMatchObject({ state: 'unreachable', message: `Berth could not connect to the engine at ${wrong.url.replace(/\/$/, '')}.` });
      // A file named as the key that is not one: refused before Berth uses it, without quoting it.
      const notKey = h.workspace('not-a-key', { 'passwd': 'root:x:0:0:secret-line\n' });
      const refused = await client.call('profiles.create', { name: 'far-wrong', engine: { ...engine, identityFile: `${notKey}/passwd` } }).then(() => null, (e: { code: string; message: string }) => e);
      expect(refused?.code).toBe('invalid_request');
      expect(refused?.message).toMatch(/is not a private key/);
      expect(refused?.message).not.toContain('secret-line');
      // The form's save: the profile runs its chats there.
      const name = `far-${Date.now().toString(36)}`;
      await client.call('profiles.create', { name, engine, egress: 'none' });
      // Saved with the profile, its key file is read: the check pings over SSH.
      expect(await client.call('engine.check', { engine, profile: name })).toMatchObject({ state: 'ok', engine: { kind: 'ssh' } });
      const chat = await core.chats.create({ profile: name });
      expect((await core.sandbox.exec({ chatId: chat.id, command: 'echo far' })).output).toBe('far\n');
      // The status bar's list: this computer's engine and the ssh one, each with its health.
      const { engines } = (await client.call('engine.list', {})) as { engines: EngineStatus[] };
      expect(engines.map((e) => [e.engine?.kind, e.state])).toEqual(expect.arrayContaining([['default', 'ok'], ['ssh', 'ok']]));
      await core.chats.delete({ chatId: chat.id });
      await core.profiles.delete({ name });
      // No profile names it any more, and nothing runs there: the status bar drops it.
      const after = (await client.call('engine.list', {})) as { engines: EngineStatus[] };
      expect(after.engines.map((e) => e.engine?.kind)).not.toContain('ssh');
    } finally {
      client.dispose();
    }
  }, 180_000);

  it('the engine going away mid-chat is reported for that profile, and the chat recovers when it returns', async () => {
    const core = trusting();
    instances.push(core.instanceId);
    const profile = await h.profile(core, { engine: { kind: 'ssh', url: sshd.url, identityFile: sshd.identityFile } });
    const chat = await core.chats.create({ profile: profile.name });
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'echo up' })).output).toContain('up');

    await sshd.stop();
    // The next command says the engine is gone (not that its sandbox broke), naming it.
    const lost = await core.sandbox.exec({ chatId: chat.id, command: 'echo down' }).then(() => null, (e: { code: string; message: string }) => e);
    expect(lost?.code).toBe('engine_unreachable');
    expect(lost?.message).toMatch(/127\.0\.0\.1/);
    const down = await waitFor(async () => {
      const s = await core.engine.status({ profile: profile.name });
      return s.state === 'unreachable' ? s : undefined;
    }, 'the ssh engine reported unreachable', 60_000);
    expect(down.message).toMatch(/127\.0\.0\.1/);
    // The default engine's health is its own: still fine.
    expect((await core.engine.status({})).state).toBe('ok');

    await sshd.start();
    await waitFor(async () => (await core.engine.status({ profile: profile.name })).state === 'ok', 'the ssh engine reported back', 60_000);
    const back = await core.sandbox.exec({ chatId: chat.id, command: 'echo back' });
    expect(back.output).toContain('back');
    await core.chats.delete({ chatId: chat.id });
  }, 180_000);

  describe('the host key is checked against known_hosts, as ssh does', () => {
    /** A chat on a profile of this sshd, with this known_hosts: what the user sees. */
    async function refusedWith(knownHosts: string) {
      const file = path.join(h.workspace('known-hosts', { known_hosts: knownHosts }), 'known_hosts');
      const core = h.core({ knownHostsFiles: [file] });
      instances.push(core.instanceId);
      const engine = { kind: 'ssh' as const, url: sshd.url, identityFile: sshd.identityFile };
      const profile = await h.profile(core, { engine });
      // The profile's own saved setting: the check says what the engine client said, as engine.status does.
      const checked = (await core.call('engine.check', { engine, profile: profile.name })) as EngineStatus;
      const chat = await core.chats.create({ profile: profile.name });
      const refused = await core.sandbox.exec({ chatId: chat.id, command: 'echo never' }).then(() => null, (e: { code: string; message: string; hint?: string }) => e);
      const status = await core.engine.status({ profile: profile.name });
      // Nothing of the profile was made there (no sandbox, no proxy): its engine was never talked to.
      expect(await docker('ps', '-a', '--format', '{{.Names}}', '--filter', `label=berth.instance=${core.instanceId}`, '--filter', `label=berth.profile=${profile.name}`)).toBe('');
      return { core, file, chat, profile, checked, refused, status };
    }

    it('an sshd whose key is not in known_hosts is refused, saying how to add it', async () => {
      const { core, file, chat, profile, checked, refused, status } = await refusedWith('# nothing for this host\n');
      for (const said of [checked, status]) {
        expect(said.state).toBe('unreachable');
        expect(said.message).toContain(`The SSH host 127.0.0.1:${sshd.port} is not in your known_hosts`);
        expect(said.hint).toContain(`ssh -p ${sshd.port} root@127.0.0.1`);
      }
      expect(refused?.code).toBe('engine_unreachable');
      expect(refused?.message).toContain('is not in your known_hosts');
      // The user adds the key (as `ssh` would on the first connection): the refusal goes away, the chat runs.
      fs.appendFileSync(file, `${sshd.knownHostsLine()}\n`);
      await waitFor(async () => (await core.engine.status({ profile: profile.name })).state === 'ok', 'the ssh engine accepted once known', 60_000);
      expect((await core.sandbox.exec({ chatId: chat.id, command: 'echo now' })).output).toContain('now');
      await core.chats.delete({ chatId: chat.id });
    }, 120_000);

    it('an sshd whose key differs from the known_hosts entry is refused as a possible man-in-the-middle, naming the entry', async () => {
      const dir = fs.mkdtempSync(path.join(sshd.dir, 'other-'));
      const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'k')]);
      expect(made.status).toBe(0);
      const other = fs.readFileSync(path.join(dir, 'k.pub'), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
      const { file, checked, refused, status } = await refusedWith(`# another machine's key under this address\n[127.0.0.1]:${sshd.port} ${other}\n`);
      for (const said of [checked, status]) {
        expect(said.state).toBe('unreachable');
        expect(said.message).toMatch(/differs from the one in your known_hosts/);
        expect(said.message).toMatch(/man-in-the-middle/);
        expect(said.message).toContain(`${file}:2`);
      }
      expect(refused?.code).toBe('engine_unreachable');
      expect(refused?.message).toContain(`${file}:2`);
    }, 120_000);

    it('a hashed known_hosts entry (HashKnownHosts yes) is accepted', async () => {
      const file = path.join(h.workspace('known-hosts-hashed', { known_hosts: `${sshd.knownHostsLine()}\n` }), 'known_hosts');
      const hashed = spawnSync('ssh-keygen', ['-H', '-f', file]);
      expect(hashed.status).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toMatch(/^\|1\|/);
      const core = h.core({ knownHostsFiles: [file] });
      const engine = { kind: 'ssh' as const, url: sshd.url, identityFile: sshd.identityFile };
      const profile = await h.profile(core, { engine });
      const checked = (await core.call('engine.check', { engine, profile: profile.name })) as EngineStatus;
      expect(checked).toMatchObject({ state: 'ok', engine: { kind: 'ssh' } });
    }, 120_000);
  });
});

/** Bad input gets a clear error and loses nothing; engine trouble says what to do. */
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { containersWithLabel } from '../support/docker.js';
import { Harness, chownTree } from '../support/harness.js';

const h = new Harness();
let core: BerthCore;
let dataDir: string;
let profile: string;

beforeAll(async () => {
  ({ core, dataDir, profile } = await h.coreWithProfile());
});
afterAll(() => h.cleanup());

describe('refused attachments', () => {
  it('refuses system, in-container, sensitive and non-folder paths with a message the UI can show, and keeps what was attached', async () => {
    const chat = await core.chats.create({ profile });
    const good = h.workspace('good');
    await core.workspace.attach({ chatId: chat.id, path: good, mode: 'readwrite' });
    const file = path.join(good, 'file.txt');
    fs.writeFileSync(file, 'x');
    const cases: [string, RegExp][] = [
      ['/etc', /\/etc is a system folder/],
      ['/', /whole disk/],
      ['/workspace', /inside the sandbox/],
      ['/workspace/project', /inside the sandbox/],
      ['/var/run', /Docker socket|system folder/],
      ['/var', /Docker socket|system folder/],
      [os.homedir(), /whole home folder/],
      [dataDir, /Berth's own data/],
      [path.join(dataDir, 'profiles'), /Berth's own data|does not exist/],
      [path.join(os.homedir(), '.ssh'), /credentials|does not exist/],
      [file, /a file, not a folder/],
      [path.join(good, 'nope'), /does not exist/],
      ['relative/path', /not a full path/],
    ];
    for (const [p, message] of cases) {
      const attempt = core.workspace.attach({ chatId: chat.id, path: p, mode: 'readwrite' });
      await expect(attempt, p).rejects.toMatchObject({ code: 'workspace_refused' });
      await expect(attempt, p).rejects.toThrow(message);
    }
    // A link that leads somewhere refused is refused too.
    const link = path.join(h.root, 'innocent-looking');
    fs.symlinkSync('/etc', link);
    await expect(core.workspace.attach({ chatId: chat.id, path: link, mode: 'readwrite' })).rejects.toThrow(/\/etc is a system folder/);

    const { chats } = await core.chats.list({ profile });
    expect(chats.find((c) => c.id === chat.id)?.attachments.map((a) => a.hostPath)).toEqual([good]);
  });

  it('a folder reached through a symlink is recorded and mounted by its real path', async () => {
    const chat = await core.chats.create({ profile });
    const real = h.workspace('real-one', { 'inside.txt': 'i' });
    const link = path.join(h.root, 'link-to-real');
    fs.symlinkSync(real, link);
    const attached = await core.workspace.attach({ chatId: chat.id, path: link, mode: 'readwrite' });
    expect(attached.attachment.hostPath).toBe(real);
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'ls' })).output).toBe('inside.txt\n');
  });
});

describe('malformed requests', () => {
  it('rejects requests that do not match the contract, and unknown methods, without acting', async () => {
    await expect(core.call('sandbox.exec', { chatId: 5, command: 'true' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(core.call('sandbox.exec', { chatId: 'x', command: 'true', privileged: true })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(core.call('docker.run', {})).rejects.toMatchObject({ code: 'invalid_request', message: 'Unknown method "docker.run".' });
    await expect(core.call('profiles.create', { name: 'x', egress: 'host' })).rejects.toMatchObject({ code: 'invalid_request' });
    // Each problem said once, in one sentence: no doubled full stops between or after them.
    await expect(core.call('profiles.create', { name: 'x', egressAllow: ['1.2.3.4', 'ok.example', '*.npmjs.org:99999'] })).rejects.toMatchObject({
      code: 'invalid_request',
      message:
        'The request for profiles.create is not valid: egressAllow.0: "1.2.3.4" looks like an IP address; the allowlist takes host names only; ' +
        'egressAllow.2: "*.npmjs.org:99999": a port is between 1 and 65535.',
    });
    await expect(core.call('profiles.create', { name: 'y', sandboxUser: '0:0' })).rejects.toThrow(/never runs as root/);
    expect((await core.profiles.list({})).profiles.map((p) => p.name)).not.toContain('x');
    await expect(core.sandbox.exec({ chatId: 'no-such-chat', command: 'true' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('engine trouble', () => {
  it('refuses an allowlist profile on an engine the egress proxy cannot serve when it is saved, not when its first chat starts', async () => {
    // Before: saved as asked (a new profile's network is the allowlist), then every chat of it
    // failed to start with "… cannot run on a remote engine yet."
    const remote = { kind: 'ssh', url: 'ssh://me@127.0.0.1:1' };
    // A socket of the user's Podman (nothing answers on it: the refusal comes before any call).
    const socketPath = path.join(h.workspace('podman-socket'), 'podman.sock');
    const listening = net.createServer().listen(socketPath);
    await once(listening, 'listening');
    const podman = { kind: 'podman', socketPath };
    for (const engine of [remote, podman]) {
      await expect(core.call('profiles.create', { name: 'elsewhere', engine })).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/^The allowlist network needs this computer's Docker engine/),
        hint: 'Set Network to "None" or "Open" for this engine, or run the profile on this computer\'s Docker.',
      });
    }
    expect((await core.profiles.list({})).profiles.map((p) => p.name)).not.toContain('elsewhere');
    // Switching a profile to such an engine and the allowlist is refused the same way, and changes nothing.
    for (const engine of [remote, podman]) {
      await expect(core.call('profiles.update', { name: profile, settings: { engine, egress: 'allowlist' } })).rejects.toMatchObject({ code: 'invalid_request' });
    }
    expect((await core.profiles.list({})).profiles.find((p) => p.name === profile)?.settings).toMatchObject({ engine: { kind: 'default' }, egress: 'open' });
    listening.close();
  });

  it('an unreachable engine gives a typed error with a next step; chats still list', async () => {
    const offline = h.core({ env: { DOCKER_HOST: `unix://${path.join(h.root, 'no-docker.sock')}` } });
    const chat = await offline.chats.create({ title: 'works offline' });
    const run = offline.sandbox.exec({ chatId: chat.id, command: 'true' });
    await expect(run).rejects.toMatchObject({ code: 'engine_unreachable' });
    await expect(run).rejects.toThrow(/cannot be reached/);
    const error = (await run.catch((e: unknown) => e)) as { hint?: string };
    expect(error.hint).toMatch(/Start Docker/);
    expect((await offline.chats.list({})).chats.map((c) => c.title)).toContain('works offline');
  });

  it('deletes a profile and its chats while an engine does not answer, as it deletes a chat', async () => {
    const offline = h.core({ env: { DOCKER_HOST: `unix://${path.join(h.root, 'no-docker-either.sock')}` } });
    const gone = await offline.profiles.create({ name: 'gone', egress: 'none' });
    const chat = await offline.chats.create({ profile: gone.name });
    await expect(offline.sandbox.exec({ chatId: chat.id, command: 'true' })).rejects.toMatchObject({ code: 'engine_unreachable' });
    // Before: refused with "cannot be reached", the chats gone but the profile kept, and no way to
    // delete it until that engine answered again (any engine Berth had talked to, a remote one too).
    await offline.profiles.delete({ name: gone.name });
    expect((await offline.profiles.list({})).profiles.map((p) => p.name)).not.toContain('gone');
    expect((await offline.chats.list({})).chats.map((c) => c.id)).not.toContain(chat.id);
  });
});

describe('engine status', () => {
  it("lists an engine in the status bar while a profile names it, and not after (its error goes with its cause)", async () => {
    const far = { kind: 'ssh', url: 'ssh://me@127.0.0.1:1' } as const;
    const listed = async () => ((await core.call('engine.list', {})) as { engines: Array<{ engine?: { kind: string; label: string } }> }).engines.map((e) => e.engine?.label);
    const p = await core.profiles.create({ name: 'far-away', engine: far, egress: 'none' });
    const chat = await core.chats.create({ profile: p.name });
    await expect(core.sandbox.exec({ chatId: chat.id, command: 'true' })).rejects.toMatchObject({ code: 'engine_unreachable' });
    expect(await listed()).toContain('ssh://me@127.0.0.1:1');
    await core.profiles.delete({ name: p.name });
    // Before: still listed, "unreachable", until Berth restarted.
    expect(await listed()).not.toContain('ssh://me@127.0.0.1:1');
    expect((await listed()).length).toBeGreaterThan(0);
  });

  it('says the engine is down, then notices by itself when it comes back', async () => {
    const net = await import('node:net');
    const { ManualClock } = await import('../support/manualClock.js');
    const { waitFor } = await import('../support/waitFor.js');
    const socket = path.join(h.root, 'late-docker.sock');
    const clock = new ManualClock();
    const late = h.core({ clock, env: { DOCKER_HOST: `unix://${socket}` } });
    const seen: string[] = [];
    late.onEvent((event, payload) => {
      if (event === 'engine.status') seen.push((payload as { state: string }).state);
    });
    const down = await late.engine.status({});
    expect(down).toMatchObject({ state: 'unreachable', endpoint: socket });
    expect(down.message).toMatch(/cannot be reached/);
    expect(down.hint).toMatch(/Start Docker/);
    expect((await late.chats.list({})).chats).toEqual([]);
    const chat = await late.chats.create({ title: 'waiting for Docker' });
    await expect(late.sandbox.exec({ chatId: chat.id, command: 'true' })).rejects.toMatchObject({ code: 'engine_unreachable' });
    expect((await late.sandbox.status({ chatId: chat.id })).state).toBe('error');

    // The engine "returns": a socket at that path now leads to the real one.
    const proxy = net.createServer((client) => {
      const upstream = net.connect('/var/run/docker.sock');
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(socket, resolve));
    try {
      const up = await waitFor(async () => {
        // Time passes: the monitor's next scheduled check comes due.
        clock.advance(5_000);
        const s = await late.engine.status({});
        return s.state === 'ok' ? s : undefined;
      }, 'the engine to be seen again');
      expect(up.version).toMatch(/^\d+\./);
      expect(seen).toEqual(['unreachable', 'ok']);
      // What the chat showed as an error only said the engine was down: it is gone now.
      expect((await late.sandbox.status({ chatId: chat.id })).state).toBe('none');
    } finally {
      await late.dispose();
      proxy.close();
    }
  });

  it('lists folders, not files, for the browser picker', async () => {
    const root = h.workspace('browse', { 'a/x.txt': 'x', 'b/y.txt': 'y', 'file.txt': 'f', '.hidden/z': 'z' });
    const listing = await core.workspace.browse({ path: root });
    expect(listing.entries.map((e) => e.name)).toEqual(['a', 'b']);
    expect(listing.parent).toBe(path.dirname(root));
    await expect(core.workspace.browse({ path: path.join(root, 'nope') })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('home template', () => {
  it('seeds configuration but never history or credentials, and never overwrites what the chat changed', async () => {
    const template = path.join(h.root, 'template');
    const files: Record<string, string> = {
      '.bashrc': 'export FROM_TEMPLATE=1\n',
      '.config/tool/settings.json': '{"theme":"dark"}',
      '.bash_history': 'secret command\n',
      '.ssh/id_ed25519': 'PRIVATE KEY',
      '.aws/credentials': '[default]',
    };
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(template, rel)), { recursive: true });
      fs.writeFileSync(path.join(template, rel), content);
    }
    chownTree(template, 0, 0);
    const p = (await h.profile(core, { homeTemplate: template })).name;
    const chat = await core.chats.create({ profile: p });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'cd ~ && find . -type f | grep -v "^./.berth/" | sort' });
    expect(out.output).toBe('./.bashrc\n./.config/tool/settings.json\n');
    await core.sandbox.exec({ chatId: chat.id, command: 'echo "export MINE=1" > ~/.bashrc' });

    // Recreating the container (a folder attached) seeds again: the chat's change stays.
    await core.workspace.attach({ chatId: chat.id, path: h.workspace('trigger'), mode: 'readwrite' });
    const again = await core.sandbox.exec({ chatId: chat.id, command: 'cat ~/.bashrc' });
    expect(again.notices.join(' ')).toMatch(/recreated/);
    expect(again.output).toBe('export MINE=1\n');
  });

  it('a configured template that is missing fails the start with a clear error instead of an empty home', async () => {
    const p = (await h.profile(core, { homeTemplate: path.join(h.root, 'no-such-template') })).name;
    const chat = await core.chats.create({ profile: p });
    const run = core.sandbox.exec({ chatId: chat.id, command: 'true' });
    await expect(run).rejects.toMatchObject({ code: 'home_template_failed' });
    await expect(run).rejects.toThrow(/no-such-template" does not exist/);
    expect(await containersWithLabel(`berth.chat=${chat.id}`)).toEqual([]);
  });
});

describe('profile mounts', () => {
  it("a chat's folder replaces a profile mount at the same path; other profile mounts stay", async () => {
    const shared = h.workspace('profile-data', { 'data.txt': 'd' });
    const fallbackWs = h.workspace('profile-ws', { 'profile-default.txt': 'p' });
    const p = (await h.profile(core, {
      staticMounts: [
        { source: fallbackWs, target: '/workspace', readOnly: true },
        { source: shared, target: '/data', readOnly: true },
      ],
    })).name;
    const plain = await core.chats.create({ profile: p });
    expect((await core.sandbox.exec({ chatId: plain.id, command: 'ls /workspace /data' })).output).toBe('/data:\ndata.txt\n\n/workspace:\nprofile-default.txt\n');
    await expect(h.profile(core, { staticMounts: [{ source: '/etc', target: '/data', readOnly: true }] })).rejects.toThrow(/\/etc is a system folder/);
    await expect(h.profile(core, { staticMounts: [{ source: shared, target: '/home/berth', readOnly: true }] })).rejects.toThrow(/reserved/);
    await expect(
      h.profile(core, {
        staticMounts: [
          { source: shared, target: '/data', readOnly: true },
          { source: fallbackWs, target: '/data/more', readOnly: true },
        ],
      }),
    ).rejects.toMatchObject({ code: 'workspace_refused' });
    const own = await core.chats.create({ profile: p });
    await core.workspace.attach({ chatId: own.id, path: h.workspace('chat-ws', { 'chat.txt': 'c' }), mode: 'readwrite' });
    expect((await core.sandbox.exec({ chatId: own.id, command: 'ls /workspace /data' })).output).toBe('/data:\ndata.txt\n\n/workspace:\nchat.txt\n');
  });
});

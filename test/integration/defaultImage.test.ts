/**
 * Berth's default environment and profiles' setup commands on the real engine. The full image's
 * build source is injected (BERTH_FULL_IMAGE_SOURCE=berth-test:bookworm): what is tested here is
 * what chats get and when, not the debootstrap build (`npm run bench:first-run` makes that one
 * for real and checks its tools).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { docker, dockerOk } from '../support/docker.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree, uniqueName } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
const baseTag = `berth-it-env-${uniqueName('b')}:1`;
const fullTag = `${baseTag}-full`;
let core: BerthCore;
let hold: string;
const madeImages = new Set<string>();

beforeAll(() => {
  hold = path.join(h.root, 'release-preparation');
  core = h.core({
    baseImage: baseTag,
    env: { ...process.env, BERTH_PREPARE_IMAGES: '1', BERTH_FULL_IMAGE_SOURCE: 'berth-test:bookworm', BERTH_TEST_HOLD_PREPARATION: hold },
  });
});
afterAll(async () => {
  await h.cleanup();
  for (const image of [baseTag, fullTag, ...madeImages]) await dockerOk('rmi', '-f', image);
});

const preparation = async (id: string) => (await core.images.status({})).preparations.find((p) => p.id === id);
const imageOf = async (chatId: string) => {
  const status = await core.sandbox.status({ chatId });
  return (await docker('inspect', '-f', '{{.Image}}', status.containerId as string)).trim();
};
const sh = async (chatId: string, command: string) => {
  const r = await core.sandbox.exec({ chatId, command });
  if (r.exitCode !== 0) throw new Error(`${command} exited ${r.exitCode}: ${r.output}`);
  return r.output;
};

describe("Berth's default environment", () => {
  it('a chat made while the full image is prepared runs on the minimal one and says so; at its next start it moves to the full one, where git works on a Review copy', async () => {
    const profile = (await h.profile(core, { image: baseTag, egress: 'none' })).name;
    await waitFor(async () => (await preparation('default'))?.state === 'preparing', 'the full image preparing (held)');
    const repo = h.workspace('repo', { 'a.txt': 'a\n' });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=U', '-c', 'user.email=u@example.com', ...args], { cwd: repo, env: { PATH: process.env.PATH, HOME: h.root, GIT_CONFIG_NOSYSTEM: '1' } });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);
    const chat = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: chat.id, path: repo });

    const minimal = await core.sandbox.exec({ chatId: chat.id, command: 'command -v bash git || echo none' });
    expect(minimal.output).toContain('none');
    expect((await core.sandbox.status({ chatId: chat.id })).environment).toMatch(/^Minimal sandbox: the full environment is being prepared/);

    fs.writeFileSync(hold, '');
    await waitFor(async () => (await preparation('default'))?.state === 'ready', 'the full image ready', 120_000);
    // Still the same running sandbox (its terminals are never swapped), now saying where it goes next.
    expect((await core.sandbox.status({ chatId: chat.id })).environment).toMatch(/full environment is ready; this chat moves to it at its next start/);

    await core.sandbox.stop({ chatId: chat.id });
    const out = await sh(chat.id, 'bash -c "git status --short --branch && python3 -c \'print(40+2)\'"');
    expect(out).toMatch(/## berth\//);
    expect(out).toContain('42');
    expect((await core.sandbox.status({ chatId: chat.id })).environment ?? null).toBeNull();
    expect(await imageOf(chat.id)).toBe((await docker('image', 'inspect', '-f', '{{.Id}}', fullTag)).trim());
    // The status bar says so.
    expect((await preparation('default'))?.message).toContain(fullTag);
  }, 300_000);
});

describe('a profile setup command', () => {
  it('runs once as root in a build of the image with no network under egress none; the next chats start from it; a changed command builds anew', async () => {
    const command = 'echo one > /etc/berth-setup-marker && ls /sys/class/net > /etc/berth-setup-nets && id -u > /etc/berth-setup-uid';
    const profile = (await h.profile(core, { image: 'berth-test:bookworm', egress: 'none', setupCommand: command })).name;
    // The preparation starts with the profile, before any chat needs it.
    await waitFor(async () => (await preparation(`setup:${profile}`)) !== undefined, 'the setup command preparing with no chat yet');
    const first = await core.chats.create({ profile });
    // A chat that starts before it is ready runs without it and says so.
    if ((await sh(first.id, 'cat /etc/berth-setup-marker 2>/dev/null || echo absent')).includes('absent')) {
      expect((await core.sandbox.status({ chatId: first.id })).environment).toMatch(/setup command is being prepared/);
    }
    await waitFor(async () => (await preparation(`setup:${profile}`))?.state === 'ready', 'the setup command prepared', 120_000);

    const second = await core.chats.create({ profile });
    expect(await sh(second.id, 'cat /etc/berth-setup-marker /etc/berth-setup-nets /etc/berth-setup-uid; id -u')).toBe('one\nlo\n0\n1000\n');
    const preparedId = await imageOf(second.id);
    madeImages.add(preparedId);
    expect((await docker('image', 'inspect', '-f', '{{index .Config.Labels "berth.prepared.key"}}', preparedId)).trim()).toMatch(/^[0-9a-f]{64}$/);

    const third = await core.chats.create({ profile });
    await sh(third.id, 'true');
    expect(await imageOf(third.id)).toBe(preparedId);

    await core.profiles.update({ name: profile, settings: { setupCommand: command.replace('echo one', 'echo two') } });
    await waitFor(async () => {
      const p = await preparation(`setup:${profile}`);
      return p?.state === 'ready' && p.label.includes('echo two');
    }, 'the changed command prepared', 120_000);
    const fourth = await core.chats.create({ profile });
    expect(await sh(fourth.id, 'cat /etc/berth-setup-marker')).toBe('two\n');
    const rebuilt = await imageOf(fourth.id);
    madeImages.add(rebuilt);
    expect(rebuilt).not.toBe(preparedId);
  }, 300_000);
});

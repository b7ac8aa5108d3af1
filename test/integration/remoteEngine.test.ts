/**
 * A remote engine whose files are not this computer's: a second dockerd in a container
 * (test/support/dind.ts), reached over tcp:// with mutual TLS on 127.0.0.1. Attached folders
 * are copies there (Review semantics), nothing local is ever bound, images are carried there by
 * save/load, and the engine going away mid-chat is said and recovered from.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../support/harness.js';
import { REMOTE_IMAGE, TestDind, dindMissing } from '../support/dind.js';
import { remoteReviewScenario, type Mounts } from '../support/remoteScenario.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
const missing = dindMissing();
if (missing) console.warn(`remoteEngine.test.ts: skipping the tcp:// engine tests: ${missing}`);
const dind = new TestDind();

beforeAll(async () => {
  if (!missing) await dind.start();
}, 400_000);
afterAll(async () => {
  if (!missing) await dind.resume().catch(() => undefined);
  await h.cleanup();
  await dind.dispose();
}, 240_000);

describe.skipIf(missing !== null)('a profile on a tcp:// engine with TLS (a second dockerd)', () => {
  const setting = () => ({ kind: 'tcp' as const, url: dind.url, tls: dind.tls });

  it('attaches a host folder as a copy there: the sandbox sees it, the folder changes only on Apply, no local path is bound', async () => {
    const core = h.core();
    await remoteReviewScenario(h, core, setting(), async (id) => (JSON.parse(await dind.cli('inspect', id)) as { Mounts: Mounts }[])[0]?.Mounts ?? [], 'tcp', REMOTE_IMAGE);
    // The image got there through save/load (no registry), and nothing of the chat is left there.
    expect(await dind.cli('image', 'ls', '--format', '{{.Repository}}:{{.Tag}}')).toContain(REMOTE_IMAGE);
    expect(await dind.cli('ps', '-aq', '--filter', `label=berth.instance=${core.instanceId}`)).toBe('');
    expect(await dind.cli('volume', 'ls', '-q', '--filter', `label=berth.instance=${core.instanceId}`)).toBe('');
  }, 400_000);

  it('links the sandbox makes in the copy there come back as links, never followed: Review applies them as on a local copy', async () => {
    const core = h.core();
    const profile = await h.profile(core, { engine: setting(), image: REMOTE_IMAGE });
    const outside = h.workspace('outside', { 'secret.txt': 'mine\n' });
    const host = h.workspace('linked', { 'a.txt': 'a\n', 'sub/keep.txt': 'k\n' });
    const chat = await core.chats.create({ profile: profile.name });
    const attached = await core.workspace.attach({ chatId: chat.id, path: host });
    const target = attached.attachment.containerPath as string;
    const hostPath = attached.attachment.hostPath;
    // An in-folder link, a link to a folder, a link out of it (here and on the engine's side),
    // and a folder turned into a link pointing at a path of this computer.
    const made = await core.sandbox.exec({
      chatId: chat.id,
      command: `cd ${target} && ln -s a.txt ok-link && ln -s sub dir-link && ln -s /etc etc-link && rm -r sub && ln -s ${outside} sub && echo done`,
    });
    expect(made).toMatchObject({ exitCode: 0, output: 'done\n' });

    const { copies } = await core.review.changes({ chatId: chat.id });
    const files = copies[0]?.files ?? [];
    expect(files.map((f) => [f.path, f.status, f.symlink]).sort()).toEqual([
      ['dir-link', 'added', true],
      ['etc-link', 'added', true],
      ['ok-link', 'added', true],
      ['sub', 'added', true],
      ['sub/keep.txt', 'deleted', false],
    ]);
    // Nothing was written through a link while the copy came back.
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('mine\n');

    // Review's rules for links, as for a local copy: a link out is refused, nothing applied.
    const refused = await core.review.apply({ chatId: chat.id, hostPath });
    expect(refused.ok).toBe(false);
    expect(refused.problems.map((p) => [p.path, p.kind]).sort()).toEqual([
      ['etc-link', 'unsafe_symlink'],
      ['sub', 'unsafe_symlink'],
    ]);
    expect(fs.readdirSync(host).sort()).toEqual(['a.txt', 'sub']);
    // An in-folder link is applied as a link, never as what it points to.
    const ok = await core.review.apply({ chatId: chat.id, hostPath, files: ['ok-link', 'dir-link'] });
    expect(ok).toMatchObject({ ok: true });
    expect(fs.readlinkSync(path.join(host, 'ok-link'))).toBe('a.txt');
    expect(fs.readlinkSync(path.join(host, 'dir-link'))).toBe('sub');
    expect(fs.readFileSync(path.join(host, 'sub/keep.txt'), 'utf8')).toBe('k\n');
    await core.chats.delete({ chatId: chat.id });
  }, 400_000);

  it('the engine going away mid-chat is said for that chat, and the chat recovers when it returns', async () => {
    const core = h.core();
    const profile = await h.profile(core, { engine: setting(), image: REMOTE_IMAGE });
    const chat = await core.chats.create({ profile: profile.name });
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'echo up > $HOME/mark && echo up' })).output).toContain('up');

    await dind.stop();
    const lost = await core.sandbox.exec({ chatId: chat.id, command: 'echo down' }).then(() => null, (e: { code: string; message: string }) => e);
    expect(lost?.code).toBe('engine_unreachable');
    expect(lost?.message).toContain(`127.0.0.1:${dind.port}`);
    await waitFor(async () => (await core.engine.status({ profile: profile.name })).state === 'unreachable', 'the tcp engine reported unreachable', 60_000);
    expect((await core.engine.status({})).state).toBe('ok');

    await dind.resume();
    await waitFor(async () => (await core.engine.status({ profile: profile.name })).state === 'ok', 'the tcp engine reported back', 90_000);
    const back = await core.sandbox.exec({ chatId: chat.id, command: 'cat $HOME/mark && echo back' });
    expect(back.output).toBe('up\nback\n');
    await core.chats.delete({ chatId: chat.id });
  }, 400_000);
});

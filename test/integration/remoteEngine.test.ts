/**
 * A remote engine whose files are not this computer's: a second dockerd in a container
 * (test/support/dind.ts), reached over tcp:// with mutual TLS on 127.0.0.1. Attached folders
 * are copies there (Review semantics), nothing local is ever bound, images are carried there by
 * save/load, and the engine going away mid-chat is said and recovered from.
 */
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

/**
 * A remote sandbox cannot fill this computer's disk through its Review copy: a file there that
 * costs it nothing (`truncate -s 3G`: no blocks on its side, zeros in the engine's archive) is
 * never written here. The mirror-back keeps Review's limits (a file over the per-file cap is
 * listed as too large, as for a local copy), and the other files still come back. Runs against
 * an sshd on 127.0.0.1 in front of this machine's engine (ssh://).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_LIMITS } from '../../shared/review.js';
import { removeInstanceVolumes } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { TestSshd, sshdMissing } from '../support/sshd.js';

const h = new Harness();
const missing = sshdMissing();
if (missing) console.warn(`remoteMirrorCap.test.ts: skipping the ssh:// engine tests: ${missing}`);
const sshd = new TestSshd();
const instances: string[] = [];

beforeAll(async () => {
  if (!missing) await sshd.start();
});
afterAll(async () => {
  await h.cleanup();
  await removeInstanceVolumes(instances);
  await sshd.dispose();
}, 240_000);

/** Disk blocks a folder takes here, in bytes (du, which counts what is really allocated). */
function diskUse(dir: string): number {
  const du = spawnSync('du', ['-s', '-B1', dir], { encoding: 'utf8' });
  return Number(du.stdout.split('\t')[0]);
}

/** A chat on the ssh:// engine with a folder (a.txt, keep.txt) attached in Review mode, on a data folder of its own. */
async function reviewChatThere(name: string) {
  const dataDir = h.dataDir();
  const core = h.core({ dataDir, knownHostsFiles: [sshd.knownHostsFile] });
  instances.push(core.instanceId);
  const profile = await h.profile(core, { engine: { kind: 'ssh', url: sshd.url, identityFile: sshd.identityFile } });
  const host = h.workspace(name, { 'a.txt': 'original\n', 'keep.txt': 'kept\n' });
  const chat = await core.chats.create({ profile: profile.name });
  const attached = await core.workspace.attach({ chatId: chat.id, path: host });
  return { dataDir, core, host, chat, hostPath: attached.attachment.hostPath, target: attached.attachment.containerPath as string };
}

describe.skipIf(missing !== null)('a Review copy on an ssh:// engine is mirrored back within Review’s limits', () => {
  it('a 3 GiB sparse file and one just over the per-file cap are listed as too large, never written here; other files come back', async () => {
    const { dataDir, core, host, chat, hostPath, target } = await reviewChatThere('sparse');
    const justOver = REVIEW_LIMITS.maxTrackedFileBytes + 1;
    const made = await core.sandbox.exec({
      chatId: chat.id,
      command: `cd ${target} && truncate -s 3G big.bin && truncate -s ${justOver} just-over.bin && echo changed > a.txt && echo new > z-after.txt && du -sk big.bin just-over.bin && echo done`,
    });
    expect(made).toMatchObject({ exitCode: 0, output: expect.stringMatching(/done\n$/) });

    const { copies } = await core.review.changes({ chatId: chat.id });
    const files = copies[0]?.files ?? [];
    // Review's own listing and words for a file over its per-file cap, as for a local copy.
    expect(files.map((f) => [f.path, f.status, f.tooLarge]).sort()).toEqual([
      ['a.txt', 'modified', false],
      ['big.bin', 'added', true],
      ['just-over.bin', 'added', true],
      ['z-after.txt', 'added', false],
    ]);
    // What the two files hold never reached this computer's disk: the whole data folder (the
    // copy here and the mirror-back's scratch) stays under the per-file cap.
    expect(diskUse(path.join(dataDir, 'review'))).toBeLessThan(REVIEW_LIMITS.maxTrackedFileBytes);
    expect(diskUse(dataDir)).toBeLessThan(REVIEW_LIMITS.maxTrackedFileBytes);
    const refused = await core.review.apply({ chatId: chat.id, hostPath: hostPath });
    expect(refused.problems.map((p) => [p.path, p.kind, p.message]).sort()).toEqual([
      ['big.bin', 'too_large', '"big.bin" is larger than Berth reviews; it cannot be applied from here.'],
      ['just-over.bin', 'too_large', '"just-over.bin" is larger than Berth reviews; it cannot be applied from here.'],
    ]);
    expect(fs.readdirSync(host).sort()).toEqual(['a.txt', 'keep.txt']);
    // The small files apply as usual.
    expect(await core.review.apply({ chatId: chat.id, hostPath: hostPath, files: ['a.txt', 'z-after.txt'] })).toMatchObject({ ok: true });
    expect(fs.readFileSync(path.join(host, 'z-after.txt'), 'utf8')).toBe('new\n');
    await core.chats.delete({ chatId: chat.id });
  }, 300_000);

  it('a 1 TiB sparse file stops the mirror-back there (its bytes are never read): listed as too large, nothing here removed', async () => {
    const { dataDir, core, chat, target } = await reviewChatThere('huge');
    // The archive lists a.txt, huge.bin, then where keep.txt was: the stream stops at huge.bin.
    const made = await core.sandbox.exec({ chatId: chat.id, command: `cd ${target} && echo changed > a.txt && truncate -s $((1024 * 1024 * 1024 * 1024)) huge.bin && rm keep.txt && echo done` });
    expect(made).toMatchObject({ exitCode: 0, output: 'done\n' });

    const { copies } = await core.review.changes({ chatId: chat.id });
    expect((copies[0]?.files ?? []).map((f) => [f.path, f.status, f.tooLarge]).sort()).toEqual([
      ['a.txt', 'modified', false],
      ['huge.bin', 'added', true],
    ]);
    expect(diskUse(dataDir)).toBeLessThan(REVIEW_LIMITS.maxTrackedFileBytes);
    await core.chats.delete({ chatId: chat.id });
  }, 300_000);
});

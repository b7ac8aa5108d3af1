/**
 * Review mode while the chat keeps running: a process the chat leaves in the background swaps a
 * folder of its copy for a link to a host folder (and a file between 1 byte and 8 GiB) as fast
 * as it can, while Berth takes checkpoints, lists changes and restores. No byte of a host file
 * may reach a checkpoint, the copy or the diff, and no listing may fail because the chat is busy.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { BOOKWORM } from '../support/docker.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from '../support/harness.js';

const h = new Harness();
let core: BerthCore;
let dataDir: string;
let profile: string;
const hostDirs: string[] = [];

/** The chat's copy (work tree) and Berth's tracking repository beside it. */
function copyDirs(chatId: string): { work: string; track: string } {
  const root = path.join(dataDir, 'review');
  for (const id of fs.readdirSync(root)) {
    try {
      const meta = JSON.parse(fs.readFileSync(path.join(root, id, 'meta.json'), 'utf8')) as { chatId: string; workDir?: string | null };
      if (meta.chatId === chatId) return { work: meta.workDir ?? path.join(root, id, 'work'), track: path.join(root, id, 'track.git') };
    } catch {
      /* not a copy */
    }
  }
  throw new Error('no copy');
}

/** The regular files under dir that hold needle, read never through a link (the test must not be the one that follows it). */
function filesHolding(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.readFileSync(p).includes(needle)) hits.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return hits;
}

/** Every object in Berth's tracking repository, as git would hand it out. */
function trackingObjects(track: string): Buffer {
  const env = { PATH: process.env.PATH, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' };
  const objects = execFileSync('git', ['--git-dir', track, 'rev-list', '--objects', '--all'], { env, maxBuffer: 1 << 28 }).toString()
    .split('\n').map((l) => l.split(' ')[0]).filter(Boolean).join('\n');
  return execFileSync('git', ['--git-dir', track, 'cat-file', '--batch'], { env, input: `${objects}\n`, maxBuffer: 1 << 30 });
}

async function sh(chatId: string, command: string): Promise<string> {
  const r = await core.sandbox.exec({ chatId, command });
  if (r.exitCode !== 0) throw new Error(`${command} exited ${r.exitCode}: ${r.output}`);
  return r.output;
}

async function reviewChat(files: Record<string, string>) {
  const repo = h.workspace('race', files);
  chownTree(repo, SANDBOX_UID, SANDBOX_GID);
  const chat = await core.chats.create({ profile, title: 'race' });
  const attached = await core.workspace.attach({ chatId: chat.id, path: repo });
  return { chatId: chat.id, hostPath: attached.attachment.hostPath };
}

/**
 * Starts a perl loop in the chat's sandbox, left behind as a chat would leave it; it swaps with
 * renameat2(RENAME_EXCHANGE) (x86_64 syscall 316), so the name always exists, once as a folder,
 * once as the link, tens of thousands of times a second.
 */
async function leaveRunning(chatId: string, perl: string): Promise<void> {
  await sh(chatId, `nohup perl -e '${perl}' >/dev/null 2>&1 & echo $! > /tmp/swapper.pid`);
  await sh(chatId, 'sleep 0.2; kill -0 "$(cat /tmp/swapper.pid)"');
}

beforeAll(async () => {
  ({ core, dataDir } = await h.coreWithProfile());
  profile = (await h.profile(core, { image: BOOKWORM })).name;
});
afterAll(async () => {
  await h.cleanup();
  for (const d of hostDirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('Review mode while the chat keeps running', () => {
  it('never takes a host file into a checkpoint, the copy or the diff while the chat swaps a folder for a link to it', async () => {
    // The host secret: root's own, 0600, outside every attachment, in a folder of the same name's shape.
    const secret = `HOST-SECRET-${randomBytes(8).toString('hex')}`;
    const hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-host-secret-'));
    hostDirs.push(hostDir);
    fs.writeFileSync(path.join(hostDir, 'notes.txt'), `${secret}\n`, { mode: 0o600 });
    fs.chmodSync(hostDir, 0o700);
    expect(fs.statSync(path.join(hostDir, 'notes.txt')).uid).toBe(0);

    const { chatId, hostPath } = await reviewChat({ 'a.txt': 'a\n', 'd/notes.txt': 'the chat’s own\n' });
    const { work, track } = copyDirs(chatId);
    await sh(chatId, `ln -s ${hostDir} l && echo changed > a.txt`);
    await leaveRunning(chatId, 'my ($a, $b) = ("d", "l"); while (1) { syscall(316, -100, $a, -100, $b, 2) }');

    const ids: string[] = [];
    const diffs: string[] = [];
    const started = Date.now();
    while (Date.now() - started < 20_000) {
      ids.push((await core.review.checkpoint({ chatId, label: `cp ${ids.length}` })).id);
      if (ids.length % 10 === 0) {
        const { copies } = await core.review.changes({ chatId, hostPath, diffs: true });
        for (const f of copies[0]!.files) {
          diffs.push(f.diff ?? '');
          // The chat moves on between the two calls: a file whose change is gone meanwhile says so.
          if (!f.binary && !f.tooLarge) diffs.push(await core.review.diff({ chatId, hostPath, path: f.path }).then((c) => c.diff ?? '', (e: unknown) => {
            if ((e as { code?: string }).code !== 'not_found') throw e;
            return '';
          }));
        }
      }
    }
    // The swapper ran the whole time, and the checkpoints met it both ways round (d a folder, d the link).
    await sh(chatId, 'kill "$(cat /tmp/swapper.pid)"');
    const modes = new Set(execFileSync('git', ['--git-dir', track, 'log', '--format=', '--raw', '--no-abbrev', '--all', '--', 'd'], { env: { PATH: process.env.PATH } }).toString()
      .split('\n').filter(Boolean).flatMap((l) => l.slice(1).split(' ').slice(0, 2)));
    expect(modes).toContain('120000');
    expect(modes).toContain('100644');

    const inBlobs = trackingObjects(track).includes(secret);
    const inDiffs = diffs.filter((d) => d.includes(secret)).length;
    const restoredWithSecret: number[] = [];
    for (const [i, id] of ids.entries()) {
      await core.review.restore({ chatId, checkpointId: id });
      if (filesHolding(work, secret).length > 0) restoredWithSecret.push(i);
    }
    expect({ inBlobs, inDiffs, restoredWithSecret, of: ids.length }).toEqual({ inBlobs: false, inDiffs: 0, restoredWithSecret: [], of: ids.length });
    expect(trackingObjects(track).includes(secret)).toBe(false);
  }, 300_000);

  it('never writes a host folder while restoring or discarding as the chat swaps a folder for a link to it', async () => {
    // A host folder of root's own that Berth must never write into: what it holds is noted first.
    const hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-host-target-'));
    hostDirs.push(hostDir);
    fs.writeFileSync(path.join(hostDir, 'notes.txt'), 'the host’s own\n', { mode: 0o600 });
    const hostState = () => fs.readdirSync(hostDir).sort().map((n) => `${n}=${fs.readFileSync(path.join(hostDir, n), 'utf8')}`);
    const before = hostState();

    const { chatId, hostPath } = await reviewChat({ 'a.txt': 'a\n', 'd/notes.txt': 'the chat’s own\n' });
        // The checkpoint to go back to has other bytes in d/ and a file more, so a restore writes into d/.
    await sh(chatId, `ln -s ${hostDir} l && echo v1 > d/notes.txt && echo v1 > d/added.txt`);
    const back = (await core.review.checkpoint({ chatId, label: 'v1' })).id;
    const swapper = 'my ($a, $b) = ("d", "l"); while (1) { syscall(316, -100, $a, -100, $b, 2) }';
    for (let i = 0; i < 6; i++) {
      await sh(chatId, 'echo v2 > d/notes.txt 2>/dev/null; rm -f d/added.txt l/added.txt; echo v2 > a.txt');
      await leaveRunning(chatId, swapper);
      if (i % 2 === 0) await core.review.restore({ chatId, checkpointId: back });
      else await core.review.discard({ chatId, hostPath });
      // What the copy holds after a write the chat raced is the chat's own mix; what counts is that none of it went elsewhere.
      expect(hostState()).toEqual(before);
      // The swapper may have been left running (the sandbox kept) or ended with it: either way it stops now.
      await sh(chatId, 'p=$(cat /tmp/swapper.pid); kill -9 "$p" 2>/dev/null; while [ -d /proc/$p ] && ! grep -q "^State:.*Z" /proc/$p/status 2>/dev/null; do sleep 0.05; done');
      // Back to d/ a folder and l the link (rm -rf removes a link itself, never what it names).
      await sh(chatId, `rm -rf d l && mkdir d && echo v2 > d/notes.txt && ln -s ${hostDir} l`);
    }
    expect(hostState()).toEqual(before);
    expect(fs.lstatSync(hostDir).isDirectory()).toBe(true);
  }, 300_000);

  it('lists changes every time while the chat swaps a file between 1 byte and 8 GiB', async () => {
    const { chatId, hostPath } = await reviewChat({ 'a.txt': 'a\n' });
    await sh(chatId, 'echo > f && echo changed > a.txt');
    await leaveRunning(chatId, 'open my $f, "+<", "f" or die; while (1) { truncate $f, 8 << 30; truncate $f, 1 }');
    const failures: string[] = [];
    for (let i = 0; i < 16; i++) {
      try {
        const { copies } = await core.review.changes({ chatId, hostPath, diffs: true });
        expect(copies[0]!.files.map((f) => f.path)).toContain('a.txt');
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    await sh(chatId, 'kill "$(cat /tmp/swapper.pid)"');
    expect(failures).toEqual([]);
  }, 300_000);
});

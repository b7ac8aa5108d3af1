/**
 * Slot folders of warm sandboxes (review/slotFolders.ts): a pooled container is created with its
 * own empty slot folder mounted at /workspace, so the Review-mode copy made for the chat that
 * took it fills the slot and appears in the running container at /workspace, without
 * recreating it; a git repository's copy with its own copy of the history, and more copies
 * beside it at the paths a container made with them would give them. A folder that must be
 * mounted itself (read-write, read-only, a git history over the limit) still gets a container
 * made with it, and the chat is told why. Slot folders are the chat's alone and go with it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { folderNameFor } from '../../electron/main/policy/names.js';
import { BOOKWORM, inspect } from '../support/docker.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';
import { containersOf, pooledChat } from '../support/warmPool.js';

const h = new Harness();
afterAll(() => h.cleanup(), 120_000);

interface Inspected {
  Id: string;
  Mounts: { Source: string; Destination: string; RW: boolean }[];
}

const slotsOf = (dataDir: string, profile: string) => path.join(dataDir, 'profiles', folderNameFor(profile), 'slots');
const slotOf = (dataDir: string, profile: string, chatId: string) => path.join(slotsOf(dataDir, profile), folderNameFor(chatId));

async function sh(core: BerthCore, chatId: string, command: string): Promise<string> {
  const r = await core.sandbox.exec({ chatId, command });
  if (r.exitCode !== 0) throw new Error(`${command} exited ${r.exitCode}: ${r.output}`);
  return r.output;
}

/** A git repository as a user has it: two commits, an uncommitted edit. */
function userRepo(name: string, extra: Record<string, string> = {}): string {
  const repo = h.workspace(name, { 'a.txt': 'a1\n', 'src/main.js': 'console.log(1);\n', ...extra });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=U', '-c', 'user.email=u@example.com', ...args], {
      cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: h.root, GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a2\n');
  git('commit', '-q', '-am', 'second');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a3 uncommitted\n');
  chownTree(repo, SANDBOX_UID, SANDBOX_GID);
  return repo;
}

/** Every file under a folder with its inode, by path relative to it. */
function inodes(root: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = path.join(rel, d.name);
      if (d.isDirectory()) walk(r);
      else out.set(r, fs.lstatSync(path.join(root, r)).ino);
    }
  };
  walk('');
  return out;
}

describe('slot folders of warm sandboxes', () => {
  it('a Review-mode copy appears in the pooled chat’s running container: same container, writable, reviewed and applied; no other chat sees it', async () => {
    const dataDir = h.dataDir();
    const core = h.core({ dataDir });
    const profile = (await h.profile(core, { warmPool: 1 })).name;
    const { chat, containerId } = await pooledChat(core, profile);
    expect(containerId).toBeTruthy();

    // The warm container mounts its own (empty) slot folder at /workspace and nothing of the user's.
    const warm = await inspect<Inspected>(containerId);
    const slot = slotOf(dataDir, profile, chat.id);
    expect(warm.Mounts.find((m) => m.Destination === '/workspace')?.Source).toBe(slot);

    const folder = h.workspace('notes', { 'todo.txt': 'one\n' });
    // Main knows beforehand: the copy keeps the running container; a read-write folder does not.
    expect(await core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'review', path: folder })).toMatchObject({ recreates: false, reason: null, token: null });
    expect(await core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'readwrite' })).toMatchObject({ recreates: true, reason: expect.stringMatching(/read-write/) });
    const attached = await core.workspace.attach({ chatId: chat.id, path: folder });
    expect(attached.attachment.mode).toBe('review');
    // Where a chat's one folder always is.
    expect(attached.attachment.containerPath).toBe('/workspace');
    // Nothing to recreate: the attach says nothing about a new sandbox.
    expect(attached.notice).toBeNull();

    const out = await sh(core, chat.id, 'cat todo.txt; pwd; id -u; echo two >> todo.txt; echo new > added.txt');
    expect(out).toBe(`one\n/workspace\n${SANDBOX_UID}\n`);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);
    // A terminal opened now starts there too, in the same container.
    const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);
    await core.terminal.close({ terminalId: term.terminalId });
    expect(fs.readdirSync(slot).sort()).toEqual(['added.txt', 'todo.txt']);
    // The user's folder is untouched until Apply.
    expect(fs.readFileSync(path.join(folder, 'todo.txt'), 'utf8')).toBe('one\n');

    const { copies } = await core.review.changes({ chatId: chat.id });
    expect(copies[0]!.files.map((f) => `${f.status} ${f.path}`).sort()).toEqual(['added added.txt', 'modified todo.txt']);
    const applied = await core.review.apply({ chatId: chat.id, hostPath: attached.attachment.hostPath });
    expect(applied).toMatchObject({ ok: true, problems: [] });
    expect(fs.readFileSync(path.join(folder, 'todo.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(fs.readFileSync(path.join(folder, 'added.txt'), 'utf8')).toBe('new\n');
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);

    // The next pooled chat has a slot of its own, and sees nothing of the first chat's.
    const other = await pooledChat(core, profile);
    expect(other.containerId).not.toBe(containerId);
    expect(await sh(core, other.chat.id, 'ls -A /workspace; echo end')).toBe('end\n');
    // An empty slot is Berth's: the sandbox can put nothing in it (only a copy Berth made goes there).
    const planted = await core.sandbox.exec({ chatId: other.chat.id, command: 'mkdir /workspace/mine 2>&1 || ln -s / /workspace/root 2>&1 || echo refused' });
    expect(planted.output).toContain('refused');
    expect(fs.readdirSync(slotOf(dataDir, profile, other.chat.id))).toEqual([]);
    const otherMounts = (await inspect<Inspected>(other.containerId)).Mounts;
    expect(otherMounts.some((m) => m.Source.startsWith(slot))).toBe(false);

    // Detach: the copy goes (it had no changes left after Apply), from the slot too, and main said so.
    expect(await core.workspace.attachPreview({ chatId: chat.id, action: 'detach', path: folder })).toMatchObject({ recreates: false, reason: null, token: null });
    await core.workspace.detach({ chatId: chat.id, path: folder });
    expect(fs.readdirSync(slot)).toEqual([]);
    // Same container still, its /workspace empty again.
    expect(await sh(core, chat.id, 'ls -A /workspace | wc -l')).toMatch(/^0\n$/);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);
    // The slot goes with the chat.
    await core.chats.delete({ chatId: chat.id });
    expect(fs.existsSync(slot)).toBe(false);
  }, 180_000);

  it('a read-write folder still gets a container made with it, and the chat is told why it waits', async () => {
    const core = h.core();
    const profile = (await h.profile(core, { warmPool: 1 })).name;
    const { chat, containerId } = await pooledChat(core, profile);
    const folder = h.workspace('direct', { 'theirs.txt': 't' });
    const progress: string[] = [];
    core.onEvent((event, payload) => {
      const p = payload as { chatId: string; phase: string; message: string };
      if (event === 'sandbox.progress' && p.chatId === chat.id) progress.push(p.message);
    });
    const attached = await core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });
    expect(attached.notice).toMatch(/read-write/i);
    expect(attached.notice).toMatch(/new sandbox|recreated/i);
    expect(await sh(core, chat.id, 'ls /workspace')).toContain('theirs.txt');
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).not.toBe(containerId);
    expect(progress.some((m) => /Creating/.test(m) && /read-write/i.test(m)), progress.join('\n')).toBe(true);
  }, 180_000);

  it('after a crash, slot folders of slots and chats that are gone are swept; a live chat’s slot stays', async () => {
    const dataDir = h.dataDir();
    const first = h.core({ dataDir });
    const profile = (await h.profile(first, { warmPool: 1 })).name;
    const { chat } = await pooledChat(first, profile);
    await waitFor(async () => (await containersOf(first, profile)).length === 2, 'the pool to refill', 60_000);
    const reserved = (await containersOf(first, profile)).find((c) => c.chat !== chat.id)!.chat;
    expect(fs.existsSync(slotOf(dataDir, profile, reserved))).toBe(true);
    // A slot left by a run that died before it could clean up: no chat, no reservation.
    const stray = slotOf(dataDir, profile, 'chat-that-never-was');
    fs.mkdirSync(path.join(stray, 'left'), { recursive: true });
    await first.dispose();

    const second = h.core({ dataDir });
    await waitFor(async () => !fs.existsSync(stray) && !fs.existsSync(slotOf(dataDir, profile, reserved)), 'the dead slots swept', 60_000);
    expect(fs.existsSync(slotOf(dataDir, profile, chat.id))).toBe(true);
    // Containers agree: the earlier run's reserved sandbox is gone, the chat's own is not an orphan.
    await waitFor(async () => !(await containersOf(second, profile)).some((c) => c.chat === reserved), 'the old warm sandbox removed', 60_000);
  }, 240_000);

  it('a git repository in Review mode appears in the pooled chat’s running container with its own copy of the history: no new container, no mount of the user’s objects', async () => {
    const dataDir = h.dataDir();
    const core = h.core({ dataDir });
    const profile = (await h.profile(core, { warmPool: 1, image: BOOKWORM })).name;
    const { chat, containerId } = await pooledChat(core, profile);
    const repo = userRepo('gitslot');
    const userObjects = path.join(repo, '.git', 'objects');
    const before = inodes(userObjects);

    const attached = await core.workspace.attach({ chatId: chat.id, path: repo });
    expect(attached.attachment.review?.kind).toBe('git');
    expect(attached.attachment.containerPath).toBe('/workspace');
    expect(attached.notice).toBeNull();

    // The history is there, on the chat's own branch, with the uncommitted edit as a change.
    const log = await sh(core, chat.id, 'git log --format=%s; git rev-parse --abbrev-ref HEAD; git status --porcelain; cat a.txt');
    expect(log).toBe(`second\nfirst\nberth/${chat.id}\n M a.txt\na3 uncommitted\n`);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);
    // Nothing of the user's is mounted: the slot and the home only.
    const mounts = (await inspect<Inspected>(containerId)).Mounts;
    expect(mounts.map((m) => m.Destination).sort()).toEqual(['/home/berth', '/workspace']);
    expect(mounts.some((m) => m.Source.startsWith(repo))).toBe(false);

    // The copy's objects are copies, never the user's files (no hard link to write through).
    const slot = slotOf(dataDir, profile, chat.id);
    const copied = inodes(path.join(slot, '.git', 'objects'));
    for (const [rel, ino] of before) {
      expect(copied.get(rel), `${rel} copied`).toBeDefined();
      expect(copied.get(rel), `${rel} is not the user's inode`).not.toBe(ino);
    }
    expect(fs.existsSync(path.join(slot, '.git', 'objects', 'info', 'alternates'))).toBe(false);
    // The sandbox may rewrite every object file of its copy; the user's stay as they were.
    await sh(core, chat.id, 'find .git/objects -type f -exec chmod u+w {} + -exec sh -c \'echo junk > "$1"\' _ {} \\;');
    for (const rel of before.keys()) expect(fs.readFileSync(path.join(userObjects, rel)).toString()).not.toBe('junk\n');
    execFileSync('git', ['-c', 'safe.directory=*', 'fsck', '--no-dangling', '--no-progress'], { cwd: repo });

    // Review still works from Berth's own repository: the uncommitted edit is the base, a new edit a change.
    await sh(core, chat.id, 'echo a4 > a.txt');
    const { copies } = await core.review.changes({ chatId: chat.id });
    expect(copies[0]!.files.map((f) => `${f.status} ${f.path}`)).toEqual(['modified a.txt']);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);
  }, 180_000);

  it('a git repository whose history is over the slot’s limit still gets a container made with its history mounted, and the chat is told why', async () => {
    const core = h.core({ slotHistoryMaxBytes: 100 });
    const profile = (await h.profile(core, { warmPool: 1, image: BOOKWORM })).name;
    const { chat, containerId } = await pooledChat(core, profile);
    const repo = userRepo('gitbig');
    expect((await core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'review', path: repo })).reason).toMatch(/history \(\d+ (bytes|KB)\)/);
    const attached = await core.workspace.attach({ chatId: chat.id, path: repo });
    expect(attached.notice).toMatch(/history \(\d+ (bytes|KB)\) is more than the 100 bytes a ready sandbox copies/);
    expect(await sh(core, chat.id, 'git log --format=%s')).toBe('second\nfirst\n');
    const status = await core.sandbox.status({ chatId: chat.id });
    expect(status.containerId).not.toBe(containerId);
    const mounts = (await inspect<Inspected>(status.containerId as string)).Mounts;
    expect(mounts.find((m) => m.Source === path.join(repo, '.git', 'objects'))?.RW).toBe(false);
  }, 180_000);

  it('a second and third Review-mode folder join the first in the pooled chat’s running container, each at the path a container made with them gives it; detaching lays it back', async () => {
    const dataDir = h.dataDir();
    const core = h.core({ dataDir });
    const profile = (await h.profile(core, { warmPool: 1, image: BOOKWORM })).name;
    const { chat, containerId } = await pooledChat(core, profile);
    const notes = h.workspace('notes', { 'todo.txt': 'one\n' });
    const site = h.workspace('site', { 'index.html': '<p>hi</p>\n' });
    const repo = userRepo('app');
    const same = async () => expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);

    await core.workspace.attach({ chatId: chat.id, path: notes });
    await sh(core, chat.id, 'echo two >> todo.txt');
    const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    expect(await core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'review', path: site })).toMatchObject({ recreates: false, reason: null, token: null });
    const second = await core.workspace.attach({ chatId: chat.id, path: site });
    expect(second.notice).toBeNull();
    expect(second.attachments.map((a) => a.containerPath)).toEqual(['/workspace/notes', '/workspace/site']);
    const third = await core.workspace.attach({ chatId: chat.id, path: repo });
    expect(third.notice).toBeNull();
    expect(third.attachments.map((a) => a.containerPath)).toEqual(['/workspace/notes', '/workspace/site', '/workspace/app']);
    await same();
    // Each folder where the views say, the chat's earlier edit kept, the repository's history with it.
    expect(await sh(core, chat.id, 'cd /workspace && ls; cat notes/todo.txt site/index.html; git -C app log --format=%s')).toBe(
      'app\nnotes\nsite\none\ntwo\n<p>hi</p>\nsecond\nfirst\n',
    );
    // The terminal opened before is still the same container's, and nothing but the slot and home is mounted.
    expect((await core.terminal.list({ chatId: chat.id })).terminals.map((t) => t.terminalId)).toContain(term.terminalId);
    const mounts = (await inspect<Inspected>(containerId)).Mounts;
    expect(mounts.map((m) => m.Destination).sort()).toEqual(['/home/berth', '/workspace']);
    // The slot's top level is Berth's: the sandbox cannot add a folder beside the copies.
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'mkdir /workspace/mine 2>&1 || echo refused' })).output).toContain('refused');
    await sh(core, chat.id, 'echo three >> /workspace/notes/todo.txt; echo new > /workspace/site/new.html');
    const { copies } = await core.review.changes({ chatId: chat.id });
    const changed = copies.map((c) => `${path.basename(c.hostPath)}: ${c.files.map((f) => `${f.status} ${f.path}`).sort().join(', ')}`).sort();
    expect(changed).toEqual(['app: ', 'notes: modified todo.txt', 'site: added new.html']);
    await same();

    // Detaching lays the slot out as a container made with the rest would have it.
    const [notesPath, sitePath] = third.attachments.map((a) => a.hostPath) as [string, string];
    await core.review.apply({ chatId: chat.id, hostPath: sitePath });
    expect(await core.workspace.attachPreview({ chatId: chat.id, action: 'detach', path: site })).toMatchObject({ recreates: false, reason: null, token: null });
    const left = await core.workspace.detach({ chatId: chat.id, path: site });
    expect(left.notice).toBeNull();
    expect(left.attachments.map((a) => a.containerPath)).toEqual(['/workspace/notes', '/workspace/app']);
    expect(await sh(core, chat.id, 'ls /workspace')).toBe('app\nnotes\n');
    await core.review.apply({ chatId: chat.id, hostPath: notesPath });
    const one = await core.workspace.detach({ chatId: chat.id, path: notes });
    expect(one.attachments.map((a) => a.containerPath)).toEqual(['/workspace']);
    expect(await sh(core, chat.id, 'cd /workspace && ls && git log --format=%s')).toBe('a.txt\nsrc\nsecond\nfirst\n');
    await same();
    expect(fs.readFileSync(path.join(notes, 'todo.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    await core.terminal.close({ terminalId: term.terminalId });
  }, 240_000);
});

/**
 * Review mode on the real engine: a folder attached in Review mode is the chat's own copy; the
 * user's folder changes only through Apply; discard, undo and parallel chats; and the copy's
 * writes (configs, hooks, links) never make this computer run anything or write elsewhere.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { BOOKWORM, inspect } from '../support/docker.js';
import { runTurn } from '../support/agentDriver.js';
import { nextEvent } from '../support/events.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from '../support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../support/openaiTestServer.js';

const KEY = 'sk-test-0123456789abcdef';
const read = (p: string) => fs.readFileSync(p, 'utf8');
const h = new Harness();
let core: BerthCore;
let dataDir: string;
let profile: string;

/** Where Berth keeps a chat's copy (the test looks, the product never tells the container). */
function copyWorkDir(chatId: string): string {
  const root = path.join(dataDir, 'review');
  for (const id of fs.readdirSync(root)) {
    try {
      if (JSON.parse(read(path.join(root, id, 'meta.json'))).chatId === chatId) return path.join(root, id, 'work');
    } catch {
      /* not a copy */
    }
  }
  throw new Error('no copy');
}
let server: OpenAiTestServer;

/** The user's own git, as they would run it. */
function userGit(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=U', '-c', 'user.email=u@example.com', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: h.root, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A git repository as a user has it: some commits, an uncommitted edit, an untracked file and a .env. */
function userRepo(name: string, files: Record<string, string> = { 'a.txt': 'a1\n', 'c.txt': 'c1\n', 'src/main.js': 'console.log(1);\n' }): string {
  const repo = h.workspace(name, files);
  userGit(repo, 'init', '-q', '-b', 'main');
  userGit(repo, 'add', '-A');
  userGit(repo, 'commit', '-q', '-m', 'first');
  chownTree(repo, SANDBOX_UID, SANDBOX_GID);
  return repo;
}

async function sh(chatId: string, command: string): Promise<string> {
  const r = await core.sandbox.exec({ chatId, command });
  if (r.exitCode !== 0) throw new Error(`${command} exited ${r.exitCode}: ${r.output}`);
  return r.output;
}

async function reviewChat(repo: string, title = 'review') {
  const chat = await core.chats.create({ profile, title });
  const attached = await core.workspace.attach({ chatId: chat.id, path: repo });
  return { chatId: chat.id, attached };
}


beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
  ({ core, dataDir, profile } = await h.agentCore(server, KEY, BOOKWORM));
});
afterAll(async () => {
  await h.cleanup();
  await server.close();
});

describe('Review mode', () => {
  it('gives the chat its own git copy on berth/<chat>; Apply puts exactly its changes into the folder', async () => {
    const repo = userRepo('app');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a1\nuncommitted\n');
    fs.writeFileSync(path.join(repo, 'notes.txt'), 'untracked\n');
    fs.writeFileSync(path.join(repo, '.env'), 'SECRET=1\n');
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);
    const before = userGit(repo, 'rev-parse', 'HEAD');
    const { chatId, attached } = await reviewChat(repo);
    expect(attached.attachment.mode).toBe('review');
    expect(attached.attachment.review).toMatchObject({ kind: 'git', branch: `berth/${chatId}`.slice(0, 6 + 60), baseCommit: before.trim() });
    expect(attached.attachment.review?.uncommittedFiles).toEqual(['a.txt', 'notes.txt']);
    expect(attached.attachment.review?.excludedSecrets).toEqual(['.env']);

    // Inside: the user's HEAD plus their uncommitted work, on the chat's own branch; no .env.
    expect(await sh(chatId, 'cat a.txt notes.txt; test ! -e .env && echo no-env')).toBe('a1\nuncommitted\nuntracked\nno-env\n');
    expect(await sh(chatId, 'git branch --show-current && git status --porcelain')).toBe(`${attached.attachment.review?.branch}\n M a.txt\n?? notes.txt\n`);
    expect(await sh(chatId, 'git log --format=%s')).toBe('first\n');

    const counted = nextEvent(core, 'review.changed', (e) => e.chatId === chatId && e.count === 4);
    await sh(chatId, 'printf "a1\\nchat\\n" > a.txt && printf "new\\n" > b.txt && rm c.txt && git mv src/main.js src/app.js');
    await counted;
    // The user's folder is untouched.
    expect(read(path.join(repo, 'a.txt'))).toBe('a1\nuncommitted\n');
    expect(fs.existsSync(path.join(repo, 'b.txt'))).toBe(false);

    const { copies } = await core.review.changes({ chatId });
    expect(copies).toHaveLength(1);
    const files = Object.fromEntries(copies[0]!.files.map((f) => [f.path, f]));
    expect(Object.keys(files).sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'src/app.js']);
    expect(files['a.txt']).toMatchObject({ status: 'modified', additions: 1, deletions: 1 });
    expect(files['a.txt']!.diff).toContain('-uncommitted\n+chat');
    expect(files['b.txt']).toMatchObject({ status: 'added', diff: expect.stringContaining('+new') });
    expect(files['c.txt']).toMatchObject({ status: 'deleted' });
    expect(files['src/app.js']).toMatchObject({ status: 'renamed', oldPath: 'src/main.js' });
    expect(copies[0]!.counts).toMatchObject({ added: 1, modified: 1, deleted: 1, renamed: 1, total: 4 });

    const applied = await core.review.apply({ chatId, hostPath: attached.attachment.hostPath });
    expect(applied).toMatchObject({ ok: true, problems: [] });
    expect(read(path.join(repo, 'a.txt'))).toBe('a1\nchat\n');
    expect(read(path.join(repo, 'b.txt'))).toBe('new\n');
    expect(fs.existsSync(path.join(repo, 'c.txt'))).toBe(false);
    expect(read(path.join(repo, 'src/app.js'))).toBe('console.log(1);\n');
    expect(fs.existsSync(path.join(repo, 'src/main.js'))).toBe(false);
    expect(read(path.join(repo, '.env'))).toBe('SECRET=1\n');
    // As uncommitted changes: the user's HEAD and branches are as they were.
    expect(userGit(repo, 'rev-parse', 'HEAD')).toBe(before);
    expect(userGit(repo, 'branch', '--format=%(refname:short)')).toBe('main\n');
    expect((await core.review.changes({ chatId })).copies[0]!.files).toEqual([]);
  });

  it('after a restart of Berth the chat\'s count of changed files comes back by itself (the sidebar\'s badge)', async () => {
    const { core: first, dataDir: data, profile: p } = await h.coreWithProfile();
    const repo = userRepo('restart');
    const chat = await first.chats.create({ profile: p, title: 'restart' });
    await first.workspace.attach({ chatId: chat.id, path: repo });
    const counted = nextEvent(first, 'review.changed', (e) => e.chatId === chat.id && e.count === 2);
    const r = await first.sandbox.exec({ chatId: chat.id, command: 'echo x > new.txt && echo y > a.txt' });
    expect(r.exitCode).toBe(0);
    await counted;
    await first.dispose();

    const again = h.core({ dataDir: data });
    const back = nextEvent(again, 'review.changed', (e) => e.chatId === chat.id && e.count === 2, 30_000);
    // The page lists the chats after the restart, and that is all it does.
    await again.chats.list({});
    await back;
    const listed = (await again.chats.list({})).chats.find((c) => c.id === chat.id)!;
    expect(listed.attachments[0]!.review?.changedCount).toBe(2);
  });

  it('tells a file changed again (same count) by a new version in review.changed, and lists the copy as it is now', async () => {
    const repo = userRepo('again');
    const { chatId, attached } = await reviewChat(repo);
    const hostPath = attached.attachment.hostPath;
    const first = nextEvent(core, 'review.changed', (e) => e.chatId === chatId && e.count === 1);
    await sh(chatId, 'echo one > a.txt');
    const v1 = (await first).version;
    expect((await core.review.changes({ chatId })).copies[0]!.files[0]!.diff).toContain('+one');

    // Written again: still one changed file, so only the version tells the panel to reload.
    const second = nextEvent(core, 'review.changed', (e) => e.chatId === chatId && e.version !== v1);
    await sh(chatId, 'echo two > a.txt');
    expect(await second).toMatchObject({ count: 1 });
    const { copies } = await core.review.changes({ chatId });
    expect(copies[0]!.version).not.toBe(v1);
    expect(copies[0]!.files.map((f) => f.path)).toEqual(['a.txt']);
    expect(copies[0]!.files[0]!.diff).toContain('+two');
    expect((await core.review.diff({ chatId, hostPath, path: 'a.txt' })).diff).toContain('+two');

    // A write Berth heard nothing about (a background process): the next look still sees it.
    const work = copyWorkDir(chatId);
    fs.writeFileSync(path.join(work, 'a.txt'), 'three\n');
    fs.writeFileSync(path.join(work, 'quiet.txt'), 'quiet\n');
    const now = (await core.review.changes({ chatId })).copies[0]!;
    expect(now.files.map((f) => f.path)).toEqual(['a.txt', 'quiet.txt']);
    expect(now.files[0]!.diff).toContain('+three');
  });

  it('never mounts the folder or its .git writable: only the copy, and the shared objects read-only', async () => {
    const repo = userRepo('mounts');
    const { chatId } = await reviewChat(repo);
    await sh(chatId, 'echo x > x.txt && git add x.txt && git -c user.name=c -c user.email=c@c commit -q -m chat');
    const { containerId } = await core.sandbox.status({ chatId });
    const info = await inspect<{ Mounts: { Source: string; Destination: string; RW: boolean }[] }>(containerId as string);
    const real = fs.realpathSync(repo);
    for (const m of info.Mounts) {
      expect(m.Source === real || m.Source.startsWith(`${real}/`) ? m.RW : false).toBe(false);
    }
    expect(info.Mounts.some((m) => m.Source === path.join(real, '.git', 'objects') && !m.RW)).toBe(true);
    const objects = info.Mounts.find((m) => m.Source === path.join(real, '.git', 'objects'))!.Destination;
    const r = await core.sandbox.exec({ chatId, command: `touch ${objects}/planted 2>&1; echo rc=$?` });
    expect(r.output).toMatch(/Read-only file system[\s\S]*rc=1/);
    // The chat's commit lives in its copy, not in the user's repository.
    expect(userGit(repo, 'log', '--all', '--format=%s')).toBe('first\n');
  });

  it('Discard puts the copy back to the folder as it is now', async () => {
    const repo = userRepo('discard');
    const { chatId, attached } = await reviewChat(repo);
    await sh(chatId, 'echo chat > a.txt && echo junk > junk.txt');
    fs.writeFileSync(path.join(repo, 'c.txt'), 'user changed this meanwhile\n');
    const r = await core.review.discard({ chatId, hostPath: attached.attachment.hostPath });
    expect(r.discarded).toBe(2);
    expect(await sh(chatId, 'cat a.txt c.txt; test ! -e junk.txt && echo gone')).toBe('a1\nuser changed this meanwhile\ngone\n');
    expect((await core.review.changes({ chatId })).copies[0]!.counts.total).toBe(0);
  });

  it('Refresh brings the user’s newer changes in and keeps the chat’s, listing files changed on both sides', async () => {
    const repo = userRepo('refresh');
    const { chatId, attached } = await reviewChat(repo);
    await sh(chatId, 'echo chat > a.txt');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'user\n');
    fs.writeFileSync(path.join(repo, 'c.txt'), 'user c\n');
    const r = await core.review.refresh({ chatId, hostPath: attached.attachment.hostPath });
    expect(r).toMatchObject({ updated: ['c.txt'], conflicts: ['a.txt'] });
    expect(await sh(chatId, 'cat a.txt c.txt')).toBe('chat\nuser c\n');
    const files = (await core.review.changes({ chatId })).copies[0]!.files.map((f) => f.path);
    expect(files).toEqual(['a.txt']);
  });

  it('records a restore point before every agent turn; Undo this turn restores the copy to just before it', async () => {
    const repo = userRepo('undo');
    const { chatId, attached } = await reviewChat(repo);
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'one.txt', content: 'turn one\n' } }] },
      { text: 'Wrote one.' },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo turn two > two.txt && echo changed > one.txt && rm a.txt' } }] },
      { text: 'Wrote two.' },
    ));
    expect((await runTurn(core, chatId, 'write one')).error).toBeNull();
    // The user's own edits in the terminal after a turn ended are not that turn's changes.
    await sh(chatId, 'echo mine > mine1.txt');
    expect((await runTurn(core, chatId, 'write two')).error).toBeNull();
    await sh(chatId, 'echo mine > mine2.txt');
    const userMessages = (await core.agent.history({ chatId })).messages.filter((m) => m.role === 'user');
    const { checkpoints } = await core.review.checkpoints({ chatId });
    expect(checkpoints.map((c) => [c.reason, c.messageId, c.changedFiles])).toEqual([
      ['turn', userMessages[0]!.id, ['one.txt']],
      ['turn', userMessages[1]!.id, ['a.txt', 'one.txt', 'two.txt']],
    ]);

    // Undo puts the copy back to just before the turn: what came after it goes too.
    const undone = await core.review.undoTurn({ chatId, messageId: userMessages[1]!.id });
    expect(undone.restored.sort()).toEqual(['a.txt', 'mine2.txt', 'one.txt', 'two.txt']);
    expect(await sh(chatId, 'cat one.txt a.txt; test ! -e two.txt && echo no-two')).toBe('turn one\na1\nno-two\n');
    // The folder itself never changed.
    expect(fs.existsSync(path.join(repo, 'one.txt'))).toBe(false);
    expect((await core.review.changes({ chatId, hostPath: attached.attachment.hostPath })).copies[0]!.files.map((f) => f.path)).toEqual(['mine1.txt', 'one.txt']);
  });

  it('two chats on one repository never see each other’s writes; the second Apply reports the overlap and applies nothing', async () => {
    const repo = userRepo('parallel');
    const a = await reviewChat(repo, 'A');
    const b = await reviewChat(repo, 'B');
    await sh(a.chatId, 'echo from-a > a.txt && echo only-a > only-a.txt');
    await sh(b.chatId, 'echo from-b > a.txt && echo only-b > only-b.txt');
    expect(await sh(b.chatId, 'cat a.txt; test ! -e only-a.txt && echo isolated')).toBe('from-b\nisolated\n');
    expect((await core.review.apply({ chatId: a.chatId, hostPath: a.attached.attachment.hostPath })).ok).toBe(true);
    const second = await core.review.apply({ chatId: b.chatId, hostPath: b.attached.attachment.hostPath });
    expect(second.ok).toBe(false);
    expect(second.problems).toEqual([expect.objectContaining({ path: 'a.txt', kind: 'conflict' })]);
    expect(read(path.join(repo, 'a.txt'))).toBe('from-a\n');
    expect(fs.existsSync(path.join(repo, 'only-b.txt'))).toBe(false);
    // The non-overlapping file alone still applies.
    expect((await core.review.apply({ chatId: b.chatId, hostPath: b.attached.attachment.hostPath, files: ['only-b.txt'] })).ok).toBe(true);
    expect(read(path.join(repo, 'only-b.txt'))).toBe('only-b\n');
  });

  it('creates a branch named from the chat in the user’s repository on request, leaving their files alone', async () => {
    const repo = userRepo('branch');
    const { chatId, attached } = await reviewChat(repo);
    await sh(chatId, 'echo branch-work > a.txt && echo added > new.txt');
    const r = await core.review.apply({ chatId, hostPath: attached.attachment.hostPath, mode: 'branch' });
    expect(r).toMatchObject({ ok: true, branch: 'berth/review' });
    expect(userGit(repo, 'show', `${r.branch}:a.txt`)).toBe('branch-work\n');
    expect(userGit(repo, 'show', `${r.branch}:new.txt`)).toBe('added\n');
    expect(userGit(repo, 'log', '--format=%s', '-1', r.branch!)).toMatch(/^Changes from the Berth chat "review"/);
    expect(read(path.join(repo, 'a.txt'))).toBe('a1\n');
    expect(userGit(repo, 'status', '--porcelain')).toBe('');
  });

  it("Undo apply puts the folder back as it was before the apply and lists the chat's changes again; never over the user's own later edits", async () => {
    const repo = userRepo('undo-apply');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a1\nmine\n');
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);
    const { chatId, attached } = await reviewChat(repo);
    const hostPath = attached.attachment.hostPath;
    await sh(chatId, 'printf "chat\\n" > a.txt && mkdir -p docs/deep && printf "new\\n" > docs/deep/b.txt && rm c.txt && git mv src/main.js src/app.js');
    const changed = ['a.txt', 'c.txt', 'docs/deep/b.txt', 'src/app.js'];
    expect((await core.review.changes({ chatId })).copies[0]!.files.map((f) => f.path).sort()).toEqual(changed);
    // Nothing applied yet: nothing to undo.
    expect((await core.review.changes({ chatId })).copies[0]!.lastApply).toBeNull();
    await expect(core.review.undoApply({ chatId, hostPath })).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/no apply to undo/) });

    expect(await core.review.apply({ chatId, hostPath })).toMatchObject({ ok: true });
    expect(read(path.join(repo, 'docs/deep/b.txt'))).toBe('new\n');
    let copy = (await core.review.changes({ chatId })).copies[0]!;
    expect(copy.files).toEqual([]);
    expect(copy.lastApply?.files.sort()).toEqual(['a.txt', 'c.txt', 'docs/deep/b.txt', 'src/app.js', 'src/main.js']);

    const undone = await core.review.undoApply({ chatId, hostPath });
    expect(undone).toMatchObject({ ok: true, problems: [] });
    expect(undone.message).toMatch(/back as they were/);
    // The folder as the user left it: their own uncommitted edit kept, the chat's changes gone,
    // and no folder the apply made left behind.
    expect(read(path.join(repo, 'a.txt'))).toBe('a1\nmine\n');
    expect(read(path.join(repo, 'c.txt'))).toBe('c1\n');
    expect(read(path.join(repo, 'src/main.js'))).toBe('console.log(1);\n');
    expect(fs.existsSync(path.join(repo, 'src/app.js'))).toBe(false);
    expect(fs.existsSync(path.join(repo, 'docs'))).toBe(false);
    expect(userGit(repo, 'status', '--porcelain')).toBe(' M a.txt\n');
    // The chat's copy kept its work: the same changes are waiting to be applied again.
    copy = (await core.review.changes({ chatId })).copies[0]!;
    expect(copy.files.map((f) => f.path).sort()).toEqual(changed);
    expect(copy.lastApply).toBeNull();
    await expect(core.review.undoApply({ chatId, hostPath })).rejects.toMatchObject({ code: 'invalid_request' });

    // Applied again, then the user edits an applied file: the undo refuses and changes nothing.
    expect(await core.review.apply({ chatId, hostPath })).toMatchObject({ ok: true });
    fs.writeFileSync(path.join(repo, 'a.txt'), 'edited by me\n');
    const refused = await core.review.undoApply({ chatId, hostPath });
    expect(refused.ok).toBe(false);
    expect(refused.problems).toEqual([{ path: 'a.txt', kind: 'conflict', message: expect.stringContaining('a.txt') }]);
    expect(refused.message).toMatch(/^Nothing was undone/);
    expect(read(path.join(repo, 'a.txt'))).toBe('edited by me\n');
    expect(read(path.join(repo, 'docs/deep/b.txt'))).toBe('new\n');
    expect(fs.existsSync(path.join(repo, 'c.txt'))).toBe(false);
    // A discard drops the chat's work: what was applied of it is the user's own from then on
    // (even with the folder just as the apply left it).
    fs.writeFileSync(path.join(repo, 'a.txt'), 'chat\n');
    expect((await core.review.changes({ chatId })).copies[0]!.lastApply).not.toBeNull();
    await core.review.discard({ chatId, hostPath });
    expect((await core.review.changes({ chatId })).copies[0]!.lastApply).toBeNull();
    await expect(core.review.undoApply({ chatId, hostPath })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('copies a plain folder, and applies it back', async () => {
    const folder = h.workspace('plain', { 'doc.md': '# doc\n', 'sub/data.csv': '1,2\n', 'server.key': 'KEY' });
    const done = nextEvent(core, 'review.progress', (e) => e.hostPath === fs.realpathSync(folder) && e.phase === 'done');
    const { chatId, attached } = await reviewChat(folder);
    expect(await done).toMatchObject({ chatId, files: 2, totalFiles: 2 });
    expect(attached.attachment.review).toMatchObject({ kind: 'folder', branch: null, excludedSecrets: ['server.key'] });
    await sh(chatId, 'echo "# changed" > doc.md && rm sub/data.csv && test ! -e server.key');
    const r = await core.review.apply({ chatId, hostPath: attached.attachment.hostPath });
    expect(r.applied.sort()).toEqual(['doc.md', 'sub/data.csv']);
    expect(read(path.join(folder, 'doc.md'))).toBe('# changed\n');
    expect(fs.existsSync(path.join(folder, 'sub/data.csv'))).toBe(false);
    expect(read(path.join(folder, 'server.key'))).toBe('KEY');
    // Deleting the chat removes its copy from Berth's data dir.
    const work = copyWorkDir(chatId);
    await core.chats.delete({ chatId });
    expect(fs.existsSync(path.dirname(work))).toBe(false);
  });
});

describe('Review mode security: nothing the container writes runs on this computer or escapes the folder', () => {
  it('runs none of the hooks and program-running settings planted in the copy through diff, checkpoint, undo, apply, discard and refresh', async () => {
    const markers = fs.mkdtempSync(path.join(h.root, 'markers-'));
    const repo = userRepo('planted');
    const { chatId, attached } = await reviewChat(repo);
    const hostPath = attached.attachment.hostPath;
    await core.review.checkpoint({ chatId, label: 'clean' });
    const run = (name: string) => `sh -c 'touch ${markers}/${name}'`;
    const hook = (name: string) => `#!/bin/sh\ntouch ${markers}/hook-${name}\n`;
    const hooks = ['pre-commit', 'post-commit', 'post-checkout', 'reference-transaction', 'post-index-change', 'fsmonitor-watchman', 'pre-auto-gc', 'post-merge', 'pre-push'];
    const config = [
      '[core]', `\tfsmonitor = ${run('fsmonitor')}`, `\thooksPath = .githooks`, `\tsshCommand = ${run('ssh')}`, `\tpager = ${run('pager')}`,
      `\teditor = ${run('editor')}`, '\tuntrackedCache = true',
      '[diff]', `\texternal = ${run('diff-external')}`,
      '[diff "evil"]', `\ttextconv = ${run('textconv')}`, `\tcommand = ${run('diff-command')}`,
      '[filter "evil"]', `\tclean = ${run('clean')}`, `\tsmudge = ${run('smudge')}`, `\tprocess = ${run('process')}`, '\trequired = true',
      '[gpg]', `\tprogram = ${run('gpg')}`, '[commit]', '\tgpgSign = true',
      '[alias]', `\tstatus = !${run('alias')}`, `\tdiff = !${run('alias-diff')}`,
      '[include]', '\tpath = ../evil.inc',
      '[credential]', `\thelper = !${run('credential')}`,
    ].join('\n');
    const files: Record<string, string> = {
      '.git/config.add': `${config}\n`,
      'evil.inc': `[core]\n\tfsmonitor = ${run('include-fsmonitor')}\n`,
      '.gitattributes': '* filter=evil diff=evil\n',
      'nested/.git/HEAD': 'ref: refs/heads/main\n',
      'nested/.git/config': `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ${run('nested-fsmonitor')}\n[include]\n\tpath = /dev/null\n`,
      'nested/file.txt': 'nested\n',
      'a.txt': 'changed by the chat\n',
    };
    for (const n of hooks) {
      files[`.git/hooks/${n}`] = hook(n);
      files[`.githooks/${n}`] = hook(`path-${n}`);
    }
    const script = Object.entries(files)
      .map(([p, text]) => `mkdir -p "$(dirname '${p}')" && printf '%s' '${Buffer.from(text).toString('base64')}' | base64 -d > '${p}'`)
      .join(' && ');
    await sh(chatId, `${script} && cat .git/config.add >> .git/config && rm .git/config.add && mkdir -p nested/.git/objects nested/.git/refs && chmod +x .git/hooks/* .githooks/*`);

    const cp = await core.review.checkpoint({ chatId, label: 'planted' });
    const { copies } = await core.review.changes({ chatId });
    expect(copies[0]!.files.map((f) => f.path)).toEqual(expect.arrayContaining(['.gitattributes', '.githooks/pre-commit', 'a.txt', 'evil.inc']));
    await core.review.diff({ chatId, hostPath, path: 'a.txt' });
    await core.review.checkpoints({ chatId });
    const clean = (await core.review.checkpoints({ chatId })).checkpoints.find((c) => c.label === 'clean')!;
    await core.review.restore({ chatId, checkpointId: clean.id });
    await core.review.restore({ chatId, checkpointId: cp.id });
    const branch = await core.review.apply({ chatId, hostPath, mode: 'branch' });
    const applied = await core.review.apply({ chatId, hostPath, files: ['a.txt', '.gitattributes', 'evil.inc'] });
    await core.review.refresh({ chatId, hostPath });
    await core.review.discard({ chatId, hostPath });
    expect(fs.readdirSync(markers)).toEqual([]);
    expect(branch.ok).toBe(true);
    expect(applied.ok).toBe(true);

    // Control: the same planted repository does run programs when plain git is used on it, so
    // the empty marker folder above means Berth never ran them, not that they cannot run.
    await core.review.restore({ chatId, checkpointId: cp.id });
    const work = copyWorkDir(chatId);
    // (Its objects live at a path that exists only inside the container, so git itself may fail after the programs ran.)
    for (const args of [['status'], ['diff'], ['commit', '--allow-empty', '-m', 'x']]) {
      spawnSync('git', ['-c', 'safe.directory=*', ...args], { cwd: work, env: { PATH: process.env.PATH, HOME: h.root }, stdio: 'ignore' });
    }
    expect(fs.readdirSync(markers).length).toBeGreaterThan(0);
  });

  it('never follows links the chat planted: links to /etc, ~ and a parent are refused and nothing is applied', async () => {
    const repo = userRepo('links');
    const { chatId, attached } = await reviewChat(repo);
    const hostPath = attached.attachment.hostPath;
    await sh(chatId, 'ln -s /etc etc-link && ln -s ~ home-link && ln -s .. up && ln -s ../../.. far && ln -s a.txt ok-link && echo fine > fine.txt');
    const r = await core.review.apply({ chatId, hostPath });
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => [p.path, p.kind]).sort()).toEqual([
      ['etc-link', 'unsafe_symlink'], ['far', 'unsafe_symlink'], ['home-link', 'unsafe_symlink'], ['up', 'unsafe_symlink'],
    ]);
    expect(fs.readdirSync(repo).sort()).toEqual(['.git', 'a.txt', 'c.txt', 'src']);
    // An in-folder link is applied as a link, never as the file it points to.
    const ok = await core.review.apply({ chatId, hostPath, files: ['ok-link', 'fine.txt'] });
    expect(ok.ok).toBe(true);
    expect(fs.lstatSync(path.join(repo, 'ok-link')).isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(path.join(repo, 'ok-link'))).toBe('a.txt');

    // A link in the user's folder where the chat writes a folder: refused, never written through.
    const outside = fs.mkdtempSync(path.join(h.root, 'outside-'));
    fs.symlinkSync(outside, path.join(repo, 'docs'));
    await sh(chatId, 'mkdir -p docs && echo x > docs/readme.txt');
    const through = await core.review.apply({ chatId, hostPath, files: ['docs/readme.txt'] });
    expect(through.ok).toBe(false);
    expect(through.problems[0]).toMatchObject({ path: 'docs/readme.txt', kind: 'unsafe_path' });
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('lists a 2 GB file as too large without reading it, and refuses to apply it', async () => {
    const repo = userRepo('big');
    const { chatId, attached } = await reviewChat(repo);
    await sh(chatId, 'truncate -s 2G big.bin && truncate -s 150M c.txt && echo small > small.txt');
    const { copies } = await core.review.changes({ chatId });
    const big = copies[0]!.files.find((f) => f.path === 'big.bin');
    // A new file is listed as added, a file that was there as modified, however large.
    expect(big).toMatchObject({ status: 'added', tooLarge: true, diff: null });
    expect(copies[0]!.files.find((f) => f.path === 'c.txt')).toMatchObject({ status: 'modified', tooLarge: true });
    expect(copies[0]!.counts).toMatchObject({ added: 2, modified: 1, total: 3 });
    const r = await core.review.apply({ chatId, hostPath: attached.attachment.hostPath });
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => [p.path, p.kind]).sort()).toEqual([['big.bin', 'too_large'], ['c.txt', 'too_large']]);
    expect(fs.existsSync(path.join(repo, 'small.txt'))).toBe(false);
  });
});

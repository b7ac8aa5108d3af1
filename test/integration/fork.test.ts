/**
 * Fork a chat at a turn: the fork has the conversation up to that turn, its Review copy as the
 * turn ended (not what later turns wrote), a copy of the chat's home, its own container, and files
 * the sandbox user owns; it keeps working after the original is deleted. A chat that writes a
 * folder directly is refused. "Try again" forks before the last turn and sends the same message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { syncToShadow } from '../../electron/main/review/shadowCopy.js';
import { REVIEW_LIMITS } from '../../shared/review.js';
import { BOOKWORM } from '../support/docker.js';
import { runTurn } from '../support/agentDriver.js';
import { nextEvent } from '../support/events.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from '../support/harness.js';
import { ReviewScenario } from '../support/reviewScenario.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../support/openaiTestServer.js';

const KEY = 'sk-test-0123456789abcdef';
const h = new Harness();
let core: BerthCore;
let dataDir: string;
let profile: string;
let server: OpenAiTestServer;

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
  ({ core, dataDir, profile } = await h.agentCore(server, KEY, BOOKWORM));
});
afterAll(async () => {
  await h.cleanup();
  await server.close();
});

const s = new ReviewScenario(h, () => core, () => dataDir, () => profile);
const userRepo = (name: string): string => s.userRepo(name, { 'a.txt': 'a1\n', 'src/main.js': 'console.log(1);\n' });
const sh = (chatId: string, command: string): Promise<string> => s.sh(chatId, command);

/** Where Berth keeps a chat's copy of the folder (the test looks; the product never tells the container). */
function copyWorkDir(chatId: string): string {
  const root = path.join(dataDir, 'review');
  for (const id of fs.readdirSync(root)) {
    try {
      if (JSON.parse(fs.readFileSync(path.join(root, id, 'meta.json'), 'utf8')).chatId === chatId) return path.join(root, id, 'work');
    } catch {
      /* not a copy */
    }
  }
  throw new Error(`no copy for ${chatId}`);
}

/** Every entry under a folder whose owner is not the sandbox user. */
function notSandboxOwned(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name);
      const st = fs.lstatSync(p);
      if (st.uid !== SANDBOX_UID) out.push(path.relative(root, p));
      if (st.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

describe('Fork a chat at a turn', () => {
  it('the fork holds the copy and home as the turn ended, in its own container, and outlives the original', async () => {
    const repo = userRepo('forked');
    const chat = await core.chats.create({ profile, title: 'original' });
    const { attachment } = await core.workspace.attach({ chatId: chat.id, path: repo });
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'one.txt', content: 'turn one\n' } }] },
      { text: 'Wrote one.' },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo turn two > one.txt && echo two > two.txt' } }] },
      { text: 'Wrote two.' },
    ));
    expect((await runTurn(core, chat.id, 'write one')).error).toBeNull();
    await sh(chat.id, 'echo remembered > "$HOME/notes.txt" && ln -s /etc/shadow "$HOME/planted"');
    expect((await runTurn(core, chat.id, 'write two')).error).toBeNull();
    const firstTurn = (await core.agent.history({ chatId: chat.id })).messages.find((m) => m.role === 'user')!;

    const fork = await core.chats.fork({ chatId: chat.id, messageId: firstTurn.id });
    expect(fork.title).toBe('original (fork)');
    // The fork's copy and Berth's private mirror of it agree file for file: its first look reads nothing again.
    const forkWork = copyWorkDir(fork.chatId);
    expect((await syncToShadow(forkWork, path.join(path.dirname(forkWork), 'shadow'), REVIEW_LIMITS.maxTrackedFileBytes)).changed).toBe(false);
    // The conversation up to that turn, and its copy as the turn ended: not what turn two wrote.
    const history = (await core.agent.history({ chatId: fork.chatId })).messages;
    expect(history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['write one']);
    expect(await sh(fork.chatId, 'cat one.txt; test ! -e two.txt && echo no-two; git branch --show-current')).toBe(`turn one\nno-two\n${`berth/${fork.chatId}`.slice(0, 66)}\n`);
    // The home came along, a planted link as a link (never what it names), all the sandbox user's.
    expect(await sh(fork.chatId, 'cat "$HOME/notes.txt"; readlink "$HOME/planted"')).toBe('remembered\n/etc/shadow\n');
    expect(notSandboxOwned(copyWorkDir(fork.chatId))).toEqual([]);
    expect(await sh(fork.chatId, 'echo mine > one.txt && mkdir -p new/deep && echo x > new/deep/f && echo y > "$HOME/more" && cat one.txt')).toBe('mine\n');
    // Its own container; the original's copy is untouched by the fork's writes.
    const [a, b] = await Promise.all([core.sandbox.status({ chatId: chat.id }), core.sandbox.status({ chatId: fork.chatId })]);
    expect(b.containerId).toBeTruthy();
    expect(b.containerId).not.toBe(a.containerId);
    expect(await sh(chat.id, 'cat one.txt two.txt')).toBe('turn two\ntwo\n');
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('a1\n');

    // The original goes; the fork keeps its copy, its checkpoints and its changes to apply.
    await core.chats.delete({ chatId: chat.id });
    expect(await sh(fork.chatId, 'cat one.txt new/deep/f')).toBe('mine\nx\n');
    expect((await core.review.checkpoints({ chatId: fork.chatId })).checkpoints.map((c) => c.reason)).toEqual(['turn']);
    const files = (await core.review.changes({ chatId: fork.chatId, hostPath: attachment.hostPath })).copies[0]!.files.map((f) => f.path);
    expect(files).toEqual(['new/deep/f', 'one.txt']);
    expect((await core.review.apply({ chatId: fork.chatId, hostPath: attachment.hostPath })).ok).toBe(true);
    expect(fs.readFileSync(path.join(repo, 'one.txt'), 'utf8')).toBe('mine\n');
  });

  it('the fork takes the files git ignores (a turn\'s node_modules) as they are, links as links', async () => {
    const repo = s.userRepo('ignored', { '.gitignore': 'node_modules/\nbuild/\n', 'a.txt': 'a1\n' });
    const chat = await core.chats.create({ profile, title: 'installs' });
    await core.workspace.attach({ chatId: chat.id, path: repo });
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'mkdir -p node_modules/left-pad build && echo "module.exports = 1" > node_modules/left-pad/index.js && ln -s /etc/shadow node_modules/planted && echo out > build/app.js' } }] },
      { text: 'Installed.' },
    ));
    expect((await runTurn(core, chat.id, 'install')).error).toBeNull();
    const turn = (await core.agent.history({ chatId: chat.id })).messages.find((m) => m.role === 'user')!;
    const fork = await core.chats.fork({ chatId: chat.id, messageId: turn.id });
    expect(await sh(fork.chatId, 'cat node_modules/left-pad/index.js build/app.js; readlink node_modules/planted')).toBe('module.exports = 1\nout\n/etc/shadow\n');
    // Berth copied the link, never what it names on this computer.
    expect(fs.lstatSync(path.join(copyWorkDir(fork.chatId), 'node_modules', 'planted')).isSymbolicLink()).toBe(true);
    expect(notSandboxOwned(copyWorkDir(fork.chatId))).toEqual([]);
    // Still ignored in the fork: nothing to review or apply.
    expect((await core.review.changes({ chatId: fork.chatId })).copies[0]!.files).toEqual([]);
  });

  it('the fork carries the commits the chat made in its copy, on its own branch, never the chat\'s config, hooks or what a planted link names', async () => {
    const repo = userRepo('commits');
    const secretDir = h.workspace('host-secret', { 'secret.txt': 'HOST-SECRET-5521\n' });
    const chat = await core.chats.create({ profile, title: 'commits' });
    await core.workspace.attach({ chatId: chat.id, path: repo });
    const commit = [
      'echo committed > c.txt && git add c.txt && git -c user.name=Chat -c user.email=chat@sandbox commit -q -m "the chat\'s commit"',
      // What must not come along: the chat's settings and hooks, and links to files of this computer.
      "git config alias.x '!touch /tmp/x' && mkdir -p .git/hooks && printf '#!/bin/sh\\necho hook\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout",
      `ln -s ${path.join(secretDir, 'secret.txt')} .git/refs/heads/planted && ln -s ${secretDir} .git/objects/planted`,
    ].join(' && ');
    server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: commit } }] }, { text: 'Committed.' }));
    expect((await runTurn(core, chat.id, 'commit')).error).toBeNull();
    const turn = (await core.agent.history({ chatId: chat.id })).messages.find((m) => m.role === 'user')!;

    const fork = await core.chats.fork({ chatId: chat.id, messageId: turn.id });
    const branch = `berth/${fork.chatId}`.slice(0, 66);
    expect(await sh(fork.chatId, 'git log -1 --format=%s; git branch --show-current; git status --porcelain; git fsck --no-dangling >/dev/null 2>&1 && echo fsck-ok')).toBe(`the chat's commit\n${branch}\nfsck-ok\n`);
    expect(await sh(fork.chatId, 'git config --get alias.x; test ! -e .git/hooks/post-checkout && echo no-hook; readlink .git/refs/heads/planted')).toBe(`no-hook\n${path.join(secretDir, 'secret.txt')}\n`);
    // On this computer: the links came as links, and nothing of what they name is in the fork.
    const forkGit = path.join(copyWorkDir(fork.chatId), '.git');
    expect(fs.lstatSync(path.join(forkGit, 'refs', 'heads', 'planted')).isSymbolicLink()).toBe(true);
    const holding: string[] = [];
    const walk = (dir: string) => {
      for (const name of fs.readdirSync(dir)) {
        const p = path.join(dir, name);
        const st = fs.lstatSync(p);
        if (st.isDirectory()) walk(p);
        else if (st.isFile() && fs.readFileSync(p).includes('HOST-SECRET-5521')) holding.push(p);
      }
    };
    walk(forkGit);
    expect(holding).toEqual([]);
    expect(notSandboxOwned(copyWorkDir(fork.chatId))).toEqual([]);

    // The original goes; the fork's history stays, its own to commit on.
    await core.chats.delete({ chatId: chat.id });
    expect(await sh(fork.chatId, 'echo more >> c.txt && git -c user.name=F -c user.email=f@sandbox commit -qam more && git log --format=%s -2')).toBe("more\nthe chat's commit\n");
  });

  it('refuses a chat that writes a folder directly, saying why', async () => {
    const folder = h.workspace('direct', { 'x.txt': 'x\n' });
    chownTree(folder, SANDBOX_UID, SANDBOX_GID);
    const chat = await core.chats.create({ profile, title: 'direct' });
    await core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });
    server.setResponder(byTurn({ text: 'Hello.' }));
    expect((await runTurn(core, chat.id, 'hi')).error).toBeNull();
    const turn = (await core.agent.history({ chatId: chat.id })).messages.find((m) => m.role === 'user')!;
    const before = (await core.chats.list({ profile })).chats.length;
    await expect(core.chats.fork({ chatId: chat.id, messageId: turn.id })).rejects.toThrow(/writes ".*direct" directly \(read-write\)/);
    expect((await core.chats.list({ profile })).chats.length).toBe(before);
  });

  it('Try again forks before the last turn and sends the same message in the new chat', async () => {
    const repo = userRepo('again');
    const chat = await core.chats.create({ profile, title: 'attempts' });
    await core.workspace.attach({ chatId: chat.id, path: repo });
    server.setResponder(byTurn({ toolCalls: [{ name: 'write_file', arguments: { path: 'answer.txt', content: 'first try\n' } }] }, { text: 'Done.' }));
    expect((await runTurn(core, chat.id, 'write an answer')).error).toBeNull();
    server.setResponder(byTurn({ toolCalls: [{ name: 'write_file', arguments: { path: 'answer.txt', content: 'second try\n' } }] }, { text: 'Done again.' }));
    const ended = (id: string) => nextEvent(core, 'agent.state', (s) => s.chatId === id && !s.running, 60_000);
    const again = await core.chats.retry({ chatId: chat.id });
    await ended(again.chatId);
    expect(again.title).toBe('attempts (attempt 2)');
    expect(again.message.content).toBe('write an answer');
    expect(await sh(again.chatId, 'cat answer.txt')).toBe('second try\n');
    expect(await sh(chat.id, 'cat answer.txt')).toBe('first try\n');
    const third = await core.chats.retry({ chatId: chat.id });
    await ended(third.chatId);
    await expect(core.chats.retry({ chatId: chat.id })).rejects.toThrow('tried in 3 chats already');
  });
});

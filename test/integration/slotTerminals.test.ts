/**
 * A pooled chat's terminals when its folders change.
 * - Laid out again in the running container (review/slotFolders.ts arrangeSlot): a second
 *   Review-mode folder moves the first from /workspace to /workspace/<name>, and detaching lays
 *   it back. Nothing is recreated, so the shells and what runs in them are kept (the attach
 *   dialog asks only before a recreate); each running terminal is told once, in it, where its
 *   folder is now and how to get there.
 * - Chosen in the desktop's native dialog (ipc/registerIpc.ts over its test doubles: no Electron
 *   binary here) when the folder needs a new container: main holds it behind a token until the
 *   page has asked, so what runs in the terminals stops only after a yes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { LABEL } from '../../electron/main/policy/containerSpec.js';
import type { IpcReply } from '../../electron/main/ipc/protocol.js';
import { CONFIRM_FOLDER_CHANNEL, PICK_FOLDER_CHANNEL } from '../../electron/main/ipc/protocol.js';
import { registerIpc } from '../../electron/main/ipc/registerIpc.js';
import { isTrustedSenderUrl } from '../../electron/main/ipc/securityPolicy.js';
import { FakeIpcMain, FakeWindow, senderEvent } from '../../electron/main/ipc/testDoubles.js';
import type { PickFolderResult } from '../../shared/folderPicker.js';
import { BOOKWORM, docker } from '../support/docker.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
afterAll(() => h.cleanup(), 120_000);

async function warmChats(core: BerthCore, profile: string): Promise<string[]> {
  const out = await docker('ps', '-a', '--filter', `label=${LABEL.instance}=${core.instanceId}`, '--filter', `label=${LABEL.profile}=${profile}`,
    '--format', `{{.Label "${LABEL.chat}"}}`);
  return out.split('\n').filter(Boolean);
}

async function pooledChat(core: BerthCore, profile: string) {
  await waitFor(async () => (await warmChats(core, profile)).length > 0 || undefined, 'a warm sandbox', 60_000);
  const warm = new Set(await warmChats(core, profile));
  const chat = await core.chats.create({ profile });
  expect(warm.has(chat.id), 'the chat took a warm sandbox').toBe(true);
  return { chat, containerId: (await core.sandbox.status({ chatId: chat.id })).containerId as string };
}

describe('terminals of a pooled chat whose folders move in its running container', () => {
  it('a shell in the first folder is kept when a second arrives, is told once where the folder went, and gets there with the cd it names; detaching says so again', async () => {
    const core = h.core();
    const output = new Map<string, string>();
    core.onEvent((event, payload) => {
      if (event !== 'terminal.data') return;
      const p = payload as { terminalId: string; data: string };
      output.set(p.terminalId, (output.get(p.terminalId) ?? '') + p.data);
    });
    const profile = (await h.profile(core, { warmPool: 1, image: BOOKWORM })).name;
    const { chat, containerId } = await pooledChat(core, profile);
    await core.workspace.attach({ chatId: chat.id, path: h.workspace('notes', { 'todo.txt': 'one\n', 'src/main.txt': 'main\n' }) });

    // Two terminals: one at the folder's top, one below it, each with something of the user's in its shell.
    const top = await core.terminal.open({ chatId: chat.id, cols: 120, rows: 24 });
    const sub = await core.terminal.open({ chatId: chat.id, cols: 120, rows: 24 });
    const screen = (id: string) => output.get(id) ?? '';
    const run = async (id: string, command: string, done: string) => {
      const from = screen(id).length;
      await core.terminal.input({ terminalId: id, data: `${command}; echo ${done}-$((1+1))\n` });
      await waitFor(async () => screen(id).slice(from).includes(`${done}-2`) || undefined, done, 60_000);
      return screen(id).slice(from);
    };
    await run(top.terminalId, 'cd /workspace && KEPT=yes && cat todo.txt', 'TOP');
    await run(sub.terminalId, 'cd /workspace/src && cat main.txt', 'SUB');

    const site = h.workspace('site', { 'index.html': '<p>hi</p>\n' });
    expect(await core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'review', path: site })).toMatchObject({ recreates: false, reason: null, token: null });
    const second = await core.workspace.attach({ chatId: chat.id, path: site });
    expect(second.attachments.map((a) => a.containerPath)).toEqual(['/workspace/notes', '/workspace/site']);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);

    // What the shells see now: the top one's folder holds the folders, not the files; the one
    // below followed its folder, but its shell still names the old path.
    const atTop = await run(top.terminalId, 'ls; cat todo.txt 2>&1; echo "pwd=$(pwd)"', 'TOP2');
    expect(atTop).toMatch(/No such file/);
    const below = await run(sub.terminalId, 'echo "logical=$(pwd) physical=$(pwd -P)"; cat main.txt', 'SUB2');
    expect(below).toContain('logical=/workspace/src physical=/workspace/notes/src');

    // Each running terminal was told once, in it, where the folder is now and how to get there.
    for (const t of [top, sub]) {
      const said = screen(t.terminalId).split('/workspace/notes (it was at /workspace').length - 1;
      expect(said, screen(t.terminalId)).toBe(1);
      expect(screen(t.terminalId)).toContain('cd /workspace/notes');
    }
    // The shell was kept (its variables, no restart note), and the cd it was given works.
    const after = await run(top.terminalId, 'cd /workspace/notes && cat todo.txt && echo "kept=$KEPT"', 'TOP3');
    expect(after).toContain('one');
    expect(after).toContain('kept=yes');
    expect(screen(top.terminalId)).not.toContain('started again');

    // Detaching the second lays the first back at /workspace: the terminals are told that too.
    await core.review.apply({ chatId: chat.id, hostPath: second.attachments[1]?.hostPath as string });
    const left = await core.workspace.detach({ chatId: chat.id, path: site });
    expect(left.attachments.map((a) => a.containerPath)).toEqual(['/workspace']);
    await waitFor(async () => screen(top.terminalId).includes('now at /workspace (it was at /workspace/notes') || undefined, 'the note after detaching', 30_000);
    // The shell was in the folder's own directory, which went (its files moved up to /workspace).
    expect(await run(top.terminalId, 'cat todo.txt 2>&1', 'GONE')).toMatch(/No such file/);
    const back = await run(top.terminalId, 'cd /workspace && cat todo.txt', 'TOP4');
    expect(back).toContain('one');
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);
    for (const t of [top, sub]) await core.terminal.close({ terminalId: t.terminalId });
  }, 240_000);
});

/** A git repository as a user has it, with a history larger than a tiny slot limit. */
function userRepo(name: string): string {
  const repo = h.workspace(name, { 'a.txt': 'a1\n' });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=U', '-c', 'user.email=u@example.com', ...args], {
      cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: h.root, GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  chownTree(repo, SANDBOX_UID, SANDBOX_GID);
  return repo;
}

describe('the desktop folder picker on a pooled chat whose terminals run something', () => {
  it('attaches a folder that fits the slot at once; holds one that needs a new container until the page answers: no keeps what runs, yes replaces it', async () => {
    const core = h.core({ slotHistoryMaxBytes: 100 });
    const output = new Map<string, string>();
    core.onEvent((event, payload) => {
      if (event !== 'terminal.data') return;
      const p = payload as { terminalId: string; data: string };
      output.set(p.terminalId, (output.get(p.terminalId) ?? '') + p.data);
    });
    const profile = (await h.profile(core, { warmPool: 1, image: BOOKWORM })).name;
    const { chat, containerId } = await pooledChat(core, profile);

    const ipcMain = new FakeIpcMain();
    const win = new FakeWindow();
    let chosen = '';
    const registration = registerIpc({
      ipcMain, core, getWindow: () => win,
      dialog: { showOpenDialog: async () => ({ canceled: false, filePaths: [chosen] }) },
      isTrustedSender: (url) => isTrustedSenderUrl(url, { devServerOrigin: null }),
    });
    const pick = async (folder: string) => {
      chosen = folder;
      const reply = (await ipcMain.invoke(PICK_FOLDER_CHANNEL, senderEvent(win), { chatId: chat.id, mode: 'review' })) as IpcReply<PickFolderResult>;
      if (!reply.ok) throw new Error(reply.error.message);
      return reply.result;
    };
    const answer = async (token: string, attach: boolean) => {
      const reply = (await ipcMain.invoke(CONFIRM_FOLDER_CHANNEL, senderEvent(win), { token, attach })) as IpcReply<PickFolderResult>;
      if (!reply.ok) throw new Error(reply.error.message);
      return reply.result;
    };
    const containerNow = async () => (await core.sandbox.status({ chatId: chat.id })).containerId;
    const busy = async () => (await core.terminal.busy({ chatId: chat.id })).terminals.flatMap((t) => t.processes);

    try {
      // A small folder fills the slot: attached at once, same container.
      const first = await pick(h.workspace('notes', { 'todo.txt': 'one\n' }));
      expect(first).toMatchObject({ attached: { containerPath: '/workspace', mode: 'review' }, confirm: null });
      expect(await containerNow()).toBe(containerId);

      const term = await core.terminal.open({ chatId: chat.id, cols: 100, rows: 24 });
      await core.terminal.input({ terminalId: term.terminalId, data: 'sleep 600\n' });
      await waitFor(async () => (await busy()).some((p) => p.includes('sleep 600')) || undefined, 'sleep running in the terminal', 60_000);

      // A git repository whose history is over the slot's limit needs a container made with it: held, with why.
      const repo = userRepo('big');
      const held = await pick(repo);
      expect(held.attached).toBeNull();
      expect(held.confirm?.reason).toMatch(/history/);
      expect(JSON.stringify(held)).not.toContain(repo);
      expect((await core.chats.list({})).chats.find((c) => c.id === chat.id)?.attachments).toHaveLength(1);
      expect(await containerNow()).toBe(containerId);
      expect(await busy()).toEqual(expect.arrayContaining([expect.stringContaining('sleep 600')]));

      // No: nothing attached, the same container, sleep still running.
      expect(await answer(held.confirm?.token as string, false)).toEqual({ attached: null, notice: null, confirm: null });
      expect((await core.chats.list({})).chats.find((c) => c.id === chat.id)?.attachments).toHaveLength(1);
      expect(await containerNow()).toBe(containerId);
      expect(await busy()).toEqual(expect.arrayContaining([expect.stringContaining('sleep 600')]));

      // Yes: attached as chosen, the sandbox replaced, the terminal started again and told why.
      const again = await pick(repo);
      const yes = await answer(again.confirm?.token as string, true);
      expect(yes.attached).toMatchObject({ hostPath: fs.realpathSync(repo), mode: 'review' });
      expect(yes.notice).toMatch(/history/);
      await waitFor(async () => (output.get(term.terminalId) ?? '').includes('this terminal started again') || undefined, 'the restart note', 60_000);
      expect(await containerNow()).not.toBe(containerId);
      await core.terminal.close({ terminalId: term.terminalId });
    } finally {
      registration.dispose();
    }
  }, 240_000);
});

describe('a pooled chat without a folder', () => {
  it('opens its terminal in the home folder, as a chat with a container of its own does, not in its empty slot', async () => {
    const core = h.core();
    let screen = '';
    core.onEvent((event, payload) => {
      if (event === 'terminal.data') screen += (payload as { data: string }).data;
    });
    const profile = (await h.profile(core, { warmPool: 1 })).name;
    const { chat } = await pooledChat(core, profile);
    await core.terminal.open({ chatId: chat.id, cols: 120, rows: 24 });
    const { terminalId } = (await core.terminal.list({ chatId: chat.id })).terminals[0] as { terminalId: string };
    await core.terminal.input({ terminalId, data: 'echo "cwd=$(pwd) home=$HOME end-$((1+1))"; touch notes.txt && echo wrote-$((1+1))\n' });
    await waitFor(async () => /wrote-2|denied/.test(screen) || undefined, 'the first command', 60_000);
    const m = /cwd=(\S+) home=(\S+) end-2/.exec(screen);
    expect(m?.[1], screen).toBe(m?.[2]);
    expect(screen).toContain('wrote-2');
  });
});

/** Running commands: the long-lived shell, cwd policy, timeouts, output caps, the local backend. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { qualifyTaskId } from '../../electron/main/policy/containerKey.js';
import { openDatabase } from '../../electron/main/store/database.js';
import { createStore } from '../../electron/main/store/repositories.js';
import { Harness } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let core: BerthCore;
let dataDir: string;
let profile: string;

beforeAll(async () => {
  ({ core, dataDir, profile } = await h.coreWithProfile());
});
afterAll(() => h.cleanup());

describe('the chat shell', () => {
  it('keeps the working directory and exported variables between commands, and reports exit codes', async () => {
    const chat = await core.chats.create({ profile });
    const ws = h.workspace('proj', { 'src/app.txt': 'app' });
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    const first = await core.sandbox.exec({ chatId: chat.id, command: 'cd src && export GREETING="hello world"' });
    expect(first).toMatchObject({ exitCode: 0, cwd: '/workspace/src' });
    const second = await core.sandbox.exec({ chatId: chat.id, command: 'ls; echo "$GREETING"; echo oops >&2; exit 3' });
    expect(second.exitCode).toBe(3);
    expect(second.output).toBe('app.txt\nhello world\noops\n');
    expect(second.cwd).toBe('/workspace/src');
  });

  it('an explicit workdir wins, relative to the current directory, and a vanished cwd falls back with a note', async () => {
    const chat = await core.chats.create({ profile });
    const ws = h.workspace('wd', { 'a/b/c.txt': 'c' });
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'pwd', workdir: '/tmp' })).output).toBe('/tmp\n');
    await core.sandbox.exec({ chatId: chat.id, command: 'cd /workspace/a' });
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'ls', workdir: 'b' })).output).toBe('c.txt\n');
    // A host path inside the attached folder means the same folder inside the sandbox.
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'pwd', workdir: path.join(ws, 'a', 'b') })).output).toBe('/workspace/a/b\n');

    await core.sandbox.exec({ chatId: chat.id, command: 'mkdir -p /tmp/gone && cd /tmp/gone' });
    fs.rmSync(path.join(ws, 'a'), { recursive: true, force: true });
    await core.sandbox.exec({ chatId: chat.id, command: 'rmdir /tmp/gone' });
    const fallback = await core.sandbox.exec({ chatId: chat.id, command: 'pwd' });
    expect(fallback.output).toBe('berth: /tmp/gone does not exist; starting in /workspace\n/workspace\n');
  });

  it('never sends a recorded host path into the container; one inside the attached folder maps to /workspace', async () => {
    const chat = await core.chats.create({ profile });
    const ws = h.workspace('mapped', { 'deep/x.txt': 'x' });
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    const side = createStore(openDatabase(dataDir));
    try {
      const key = qualifyTaskId(profile, chat.id);
      side.cwd.set(key, { path: os.homedir(), location: 'host' }, Date.now());
      const outside = await core.sandbox.exec({ chatId: chat.id, command: 'pwd' });
      expect(outside.output).toBe('/workspace\n');
      expect(outside.output).not.toContain(os.homedir());

      side.cwd.set(key, { path: path.join(ws, 'deep'), location: 'host' }, Date.now());
      const inside = await core.sandbox.exec({ chatId: chat.id, command: 'pwd; ls' });
      expect(inside.output).toBe('/workspace/deep\nx.txt\n');
    } finally {
      side.close();
    }
  });

  it('a timeout ends the command with exit 124 and a note, kills what it started, and keeps the shell state', async () => {
    const chat = await core.chats.create({ profile });
    await core.sandbox.exec({ chatId: chat.id, command: 'export STAY=1; cd /tmp' });
    const slow = await core.sandbox.exec({ chatId: chat.id, command: 'echo started; sleep 300 & sleep 301; echo never', timeoutMs: 1000 });
    expect(slow).toMatchObject({ exitCode: 124, timedOut: true, cwd: '/tmp' });
    expect(slow.output).toContain('started');
    expect(slow.output).not.toContain('never');
    expect(slow.notices.join(' ')).toMatch(/stopped after 1\.0 s \(exit code 124\)/);
    const after = await core.sandbox.exec({ chatId: chat.id, command: 'echo "STAY=$STAY"; pwd; ps -o comm | grep -c "^sleep$" || true' });
    expect(after.output).toBe('STAY=1\n/tmp\n0\n');
  });

  it('an interrupt stops the running command and everything it started; the shell and its state live on', async () => {
    const chat = await core.chats.create({ profile });
    const ws = h.workspace('int');
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    await core.sandbox.exec({ chatId: chat.id, command: 'export STAY=2; cd /tmp' });
    expect(await core.sandbox.interrupt({ chatId: chat.id })).toEqual({ interrupted: false });
    const started = Date.now();
    const running = core.sandbox.exec({ chatId: chat.id, command: 'echo working; touch /workspace/.started; sleep 120 & sleep 121' });
    // Waits for the command itself to be running, not for a time: the machine may be slow.
    await waitFor(async () => fs.existsSync(path.join(ws, '.started')), 'the command to start');
    expect(await core.sandbox.interrupt({ chatId: chat.id })).toEqual({ interrupted: true });
    const out = await running;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out).toMatchObject({ exitCode: 130, timedOut: false, cwd: '/tmp' });
    expect(out.output).toBe('working\n');
    expect(out.notices.join(' ')).toMatch(/interrupted \(exit code 130\)/);
    const after = await core.sandbox.exec({ chatId: chat.id, command: 'echo "STAY=$STAY"; ps -o comm | grep -c "^sleep$" || true' });
    expect(after.output).toBe('STAY=2\n0\n');
  });

  it("an interrupt never puts the shell's own job notices (\"Terminated\") into the command's output", async () => {
    const chat = await core.chats.create({ profile });
    const ws = h.workspace('notice');
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    // The command's own shell outlives its child's death (a TERM handler), so it would surely
    // report that death, into the output, if it could still run when the child dies.
    const running = core.sandbox.exec({ chatId: chat.id, command: "trap ':' TERM; echo working; touch /workspace/.started; sleep 120; echo after" });
    await waitFor(async () => fs.existsSync(path.join(ws, '.started')), 'the command to start');
    expect(await core.sandbox.interrupt({ chatId: chat.id })).toEqual({ interrupted: true });
    const out = await running;
    expect(out.exitCode).toBe(130);
    expect(out.output).toBe('working\n');
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'ps -o comm | grep -c "^sleep$" || true' })).output).toBe('0\n');
  });

  it('caps a flood of output, keeping the head and the tail and the total size', async () => {
    const chat = await core.chats.create({ profile });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'echo FIRST; yes filler | head -c 4999995; echo LAST' });
    expect(out.exitCode).toBe(0);
    expect(out.truncated).toBe(true);
    expect(out.outputBytes).toBe(6 + 4_999_995 + 5);
    expect(out.output.startsWith('FIRST\nfiller')).toBe(true);
    expect(out.output.endsWith('filler\nLAST\n')).toBe(true);
    expect(out.output).toMatch(/bytes omitted of 5000006/);
    expect(out.output.length).toBeLessThan(70_000);
  });

  it('output that looks like the protocol does not confuse the shell', async () => {
    const chat = await core.chats.create({ profile });
    const out = await core.sandbox.exec({ chatId: chat.id, command: `printf '__BERTH_END_deadbeef__ 0 /\\n'; echo "it's \\"quoted\\" \\$HOME"` });
    expect(out.output).toBe('__BERTH_END_deadbeef__ 0 /\nit\'s "quoted" $HOME\n');
  });
});

describe('the local backend', () => {
  it('runs on the host, says plainly there is no sandbox, and uses host paths as they are', async () => {
    const local = await core.profiles.create({ name: `local-${Date.now()}`, backend: 'local' });
    expect(local.boundary).toMatch(/No sandbox/);
    const chat = await core.chats.create({ profile: local.name });
    const ws = h.workspace('host-proj', { 'here.txt': 'h' });
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'pwd; ls; cd ..' });
    expect(out.output).toBe(`${ws}\nhere.txt\n`);
    expect(out.cwd).toBe(path.dirname(ws));
    expect((await core.sandbox.status({ chatId: chat.id })).state).toBe('local');
    expect(await core.sandbox.exec({ chatId: chat.id, command: 'sleep 5', timeoutMs: 300 })).toMatchObject({ exitCode: 124, timedOut: true });
  });
});

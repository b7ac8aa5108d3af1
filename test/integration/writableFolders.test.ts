/**
 * Read-write folders the sandbox can write, on the real engine, with Berth running as root (as
 * here): the sandbox runs as the folder's owner when that is not root (its home follows), never
 * as root; a folder it still cannot write says so at attach time, with what to do, and that is
 * true (the write fails).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { Harness, SANDBOX_UID, writeTree } from '../support/harness.js';

const asRoot = process.getuid?.() === 0;
if (!asRoot) console.log('writableFolders: skipped, these cases are about Berth running as root and this run is not root.');

const h = new Harness();
let core: BerthCore;
let profile: string;

beforeAll(async () => {
  ({ core, profile } = await h.coreWithProfile());
});
afterAll(() => h.cleanup());

/** A folder owned by uid:gid with mode, outside the harness's own (which the sandbox user owns). */
function folderOwnedBy(name: string, uid: number, gid: number, mode = 0o755): string {
  const dir = path.join(fs.mkdtempSync(path.join(h.root, 'own-')), name);
  writeTree(dir, { 'readme.txt': 'hi\n' }, uid, gid);
  fs.chmodSync(dir, mode);
  return dir;
}

describe.skipIf(!asRoot)('read-write folders when Berth runs as root', () => {
  it("runs the sandbox as the folder's owner, whose files it writes; the chat's home follows", async () => {
    const chat = await core.chats.create({ profile });
    // Started first as the configured user (no folder yet), so the home is that user's.
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'id -u; touch ~/before' })).output).toBe(`${SANDBOX_UID}\n`);
    const dir = folderOwnedBy('theirs', 1234, 1300);
    const { attachments } = await core.workspace.attach({ chatId: chat.id, path: dir, mode: 'readwrite' });
    expect(attachments[0]?.writeWarning).toBeNull();
    const run = await core.sandbox.exec({ chatId: chat.id, command: 'id -u; id -g; echo made > /workspace/new.txt && touch ~/after ~/before && echo ok' });
    expect(run.output).toContain('1234\n1300\n');
    expect(run.output).toContain('ok\n');
    const made = fs.statSync(path.join(dir, 'new.txt'));
    expect([made.uid, made.gid]).toEqual([1234, 1300]);
  });

  it('never runs as root: a root-owned folder warns at attach, with what to do, and the write indeed fails', async () => {
    const chat = await core.chats.create({ profile });
    const dir = folderOwnedBy('roots', 0, 0);
    const { attachments } = await core.workspace.attach({ chatId: chat.id, path: dir, mode: 'readwrite' });
    const warning = attachments[0]?.writeWarning ?? '';
    expect(warning).toContain('belongs to root');
    expect(warning).toContain('Review mode');
    expect(warning).toContain(`chown -R ${SANDBOX_UID}:`);
    const run = await core.sandbox.exec({ chatId: chat.id, command: 'id -u; touch /workspace/x' });
    expect(run.output.split('\n')[0]).toBe(String(SANDBOX_UID));
    expect(run.exitCode).not.toBe(0);
    expect(run.output).toMatch(/Permission denied/);
    // Attached in Review mode instead, the chat can write its copy: the warning's advice works.
    await core.workspace.detach({ chatId: chat.id, path: dir });
    const again = await core.workspace.attach({ chatId: chat.id, path: dir, mode: 'review' });
    expect(again.attachments[0]?.writeWarning).toBeNull();
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'touch /workspace/x && echo wrote' })).output).toContain('wrote');
  });

  it('read-write folders of two owners: one user for the sandbox, a warning on the folder it cannot write', async () => {
    const chat = await core.chats.create({ profile });
    const mine = h.workspace('mine');
    const other = folderOwnedBy('other', 1234, 1234);
    await core.workspace.attach({ chatId: chat.id, path: mine, mode: 'readwrite' });
    const { attachments } = await core.workspace.attach({ chatId: chat.id, path: other, mode: 'readwrite' });
    const byPath = new Map(attachments.map((a) => [a.hostPath, a.writeWarning]));
    expect(byPath.get(mine)).toBeNull();
    expect(byPath.get(other)).toContain('different users');
    const run = await core.sandbox.exec({ chatId: chat.id, command: 'id -u; touch /workspace/mine/ok && echo wrote' });
    expect(run.output).toBe(`${SANDBOX_UID}\nwrote\n`);
  });
});

/** Attaching and detaching folders on the in-memory engine: errors, overlaps, notices, recreates. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCore, type FakeCore } from '../../../../test/support/fakeCore.js';
import { RECREATE_NOTICE } from '../../sandbox/sandboxService.js';

let f: FakeCore;
afterEach(async () => f?.dispose());

describe('WorkspaceService on the fake engine', () => {
  it('attaches a folder by its real path, says nothing until a sandbox exists, then says it will be recreated', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const folder = f.folder('site');
    const link = path.join(path.dirname(folder), 'link');
    fs.symlinkSync(folder, link);
    const first = await f.core.workspace.attach({ chatId: chat.id, path: link });
    expect(first).toMatchObject({ notice: null, attachment: { hostPath: folder, containerPath: '/workspace', readOnly: false } });
    const idBefore = (await f.core.sandbox.exec({ chatId: chat.id, command: 'true' })) && [...f.engine.containers.keys()];
    const second = await f.core.workspace.attach({ chatId: chat.id, path: f.folder('docs'), readOnly: true });
    expect(second.notice).toBe(RECREATE_NOTICE);
    expect(second.attachments.map((a) => a.containerPath)).toEqual(['/workspace/site', '/workspace/docs']);
    const out = await f.core.sandbox.exec({ chatId: chat.id, command: 'cd /workspace/docs && pwd' });
    expect(out.output).toBe('/workspace/docs\n');
    expect(out.notices.join(' ')).toMatch(/recreated to apply changed folders/);
    expect([...f.engine.containers.keys()]).not.toEqual(idBefore);
    const mounts = [...f.engine.containers.values()][0]!.body.HostConfig.Mounts;
    expect(mounts.filter((m) => m.Target.startsWith('/workspace')).map((m) => [m.Target, m.ReadOnly])).toEqual([
      ['/workspace/site', false],
      ['/workspace/docs', true],
    ]);
  });

  it('says beforehand whether an attach or detach replaces the running container: only once one exists, and never to fill a slot the chat has none of', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const folder = f.folder('site');
    // No container yet: nothing runs, nothing is replaced.
    expect(await f.core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'readwrite' })).toMatchObject({ recreates: false, reason: null, needsConfirmation: false, token: null });
    await f.core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });
    await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
    // A chat without a warm sandbox: every change of its folders makes a new container, Review copies too.
    for (const mode of ['review', 'readonly'] as const) {
      expect(await f.core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode })).toMatchObject({ recreates: true, reason: expect.stringMatching(/running container/) });
    }
    expect(await f.core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'readwrite', path: folder })).toMatchObject({ recreates: false, reason: null, needsConfirmation: false, token: null });
    expect(await f.core.workspace.attachPreview({ chatId: chat.id, action: 'detach', path: folder })).toMatchObject({ recreates: true });
    expect(await f.core.workspace.attachPreview({ chatId: chat.id, action: 'detach', path: f.folder('never') })).toMatchObject({ recreates: false, reason: null, needsConfirmation: false, token: null });
    // A folder the attach refuses replaces nothing (the refusal is the attach's to say).
    for (const refused of ['/etc', '/', f.folder('gone') + '/missing']) {
      expect(await f.core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'readwrite', path: refused })).toMatchObject({ recreates: false, reason: null, needsConfirmation: false, token: null });
    }
    await expect(f.core.call('workspace.attachPreview', { chatId: chat.id, action: 'detach' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('refuses what is not a folder, and a folder nested in another chat’s writable one, with a clear error and nothing saved', async () => {
    f = fakeCore();
    const a = await f.chat();
    const b = await f.chat();
    const outer = f.folder('outer');
    fs.mkdirSync(path.join(outer, 'inner'));
    fs.writeFileSync(path.join(outer, 'file.txt'), 'x');
    await expect(f.core.workspace.attach({ chatId: a.id, path: path.join(outer, 'missing') })).rejects.toMatchObject({ code: 'workspace_refused' });
    await expect(f.core.workspace.attach({ chatId: a.id, path: path.join(outer, 'file.txt') })).rejects.toMatchObject({ code: 'workspace_refused' });
    await f.core.workspace.attach({ chatId: a.id, path: outer });
    await expect(f.core.workspace.attach({ chatId: b.id, path: path.join(outer, 'inner') })).rejects.toMatchObject({ code: 'workspace_refused' });
    const { chats } = await f.core.chats.list({});
    expect(chats.find((c) => c.id === b.id)?.attachments).toEqual([]);
  });

  it('detaches by the path given or its real path, and says when a folder is not attached', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const folder = f.folder('site');
    await f.core.workspace.attach({ chatId: chat.id, path: folder });
    await expect(f.core.workspace.detach({ chatId: chat.id, path: f.folder('other') })).rejects.toMatchObject({ code: 'not_found' });
    expect((await f.core.workspace.detach({ chatId: chat.id, path: folder })).attachments).toEqual([]);
  });

  it('refuses a chat folder in a profile that shares one container, since every chat would see it', async () => {
    f = fakeCore();
    const chat = await f.chat({ containerScope: 'shared' });
    await expect(f.core.workspace.attach({ chatId: chat.id, path: f.folder() })).rejects.toMatchObject({ code: 'workspace_refused' });
  });
});

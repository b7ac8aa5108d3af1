/**
 * Attach and detach confirmed by main's one-use token (workspace.attachPreview), on the real
 * engine: main says what the change stops, and a confirmation that was used already, or was
 * given to another client, is refused and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { BUSYBOX } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let core: BerthCore;
const output = new Map<string, string>();

beforeAll(() => {
  core = h.core();
  core.onEvent((event, payload) => {
    if (event !== 'terminal.data') return;
    const p = payload as { terminalId: string; data: string };
    output.set(p.terminalId, (output.get(p.terminalId) ?? '') + p.data);
  });
});
afterAll(() => h.cleanup());

const attachmentsOf = async (chatId: string) => (await core.chats.list({})).chats.find((c) => c.id === chatId)?.attachments;

type Preview = { recreates: boolean; needsConfirmation: boolean; summary: string | null; token: string | null; running: { processes: string[] }[] };

describe('attach confirmation', () => {
  it('says what an attach stops, and takes its token once, from the client it was given to only', async () => {
    const profile = (await h.profile(core, { image: BUSYBOX })).name;
    const chat = await core.chats.create({ profile });
    const mine = core.connectClient();
    const other = core.connectClient();
    try {
      const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
      await waitFor(async () => output.get(term.terminalId)?.includes('$ ') || undefined, 'the prompt', 30_000);
      await core.terminal.input({ terminalId: term.terminalId, data: 'sleep 300\n' });
      await waitFor(async () => ((await core.terminal.busy({ chatId: chat.id })).terminals.length > 0 ? true : undefined), 'sleep running', 30_000);

      const folder = h.workspace('confirm-ws', { 'a.txt': 'a' });
      const preview = (await mine.call('workspace.attachPreview', { chatId: chat.id, action: 'attach', mode: 'readwrite', path: folder })) as Preview;
      expect(preview).toMatchObject({ recreates: true, needsConfirmation: true, running: [{ processes: ['sleep 300'] }] });
      expect(preview.summary).toMatch(/stopping what runs in 1 terminal \(sleep 300\)/);
      const token = preview.token as string;
      expect(token).toEqual(expect.any(String));

      // Another client's token: refused, nothing attached.
      await expect(other.call('workspace.attach', { chatId: chat.id, path: folder, mode: 'readwrite', confirm: token })).rejects.toMatchObject({ code: 'invalid_request' });
      expect(await attachmentsOf(chat.id)).toEqual([]);
      // The same token for another change (another mode): refused.
      await expect(mine.call('workspace.attach', { chatId: chat.id, path: folder, mode: 'readonly', confirm: token })).rejects.toMatchObject({ code: 'invalid_request' });

      // The mismatched try used the token up: asked again, confirmed, attached.
      const fresh = (await mine.call('workspace.attachPreview', { chatId: chat.id, action: 'attach', mode: 'readwrite', path: folder })) as Preview;
      const attached = (await mine.call('workspace.attach', { chatId: chat.id, path: folder, mode: 'readwrite', confirm: fresh.token })) as { attachment: { hostPath: string } };
      expect(attached.attachment.hostPath).toBe(folder);

      // Used once: the same token for the same attach again is refused.
      await core.workspace.detach({ chatId: chat.id, path: folder });
      await expect(mine.call('workspace.attach', { chatId: chat.id, path: folder, mode: 'readwrite', confirm: fresh.token })).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/confirmation was already used/),
      });
      expect(await attachmentsOf(chat.id)).toEqual([]);
    } finally {
      mine.dispose();
      other.dispose();
    }
  });

  it('refuses an attach or detach that stops what runs when no confirmation comes with it, and changes nothing', async () => {
    const profile = (await h.profile(core, { image: BUSYBOX })).name;
    const chat = await core.chats.create({ profile });
    const page = core.connectClient();
    try {
      // Nothing runs yet (no container): the attach needs no confirmation and goes ahead without one.
      const first = h.workspace('unconfirmed-first', { 'a.txt': 'a' });
      await page.call('workspace.attach', { chatId: chat.id, path: first, mode: 'readwrite' });
      expect((await attachmentsOf(chat.id))?.map((a) => a.hostPath)).toEqual([first]);

      const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
      await waitFor(async () => output.get(term.terminalId)?.includes('$ ') || undefined, 'the prompt', 30_000);
      await core.terminal.input({ terminalId: term.terminalId, data: 'sleep 300\n' });
      await waitFor(async () => ((await core.terminal.busy({ chatId: chat.id })).terminals.length > 0 ? true : undefined), 'sleep running', 30_000);

      const second = h.workspace('unconfirmed-second', { 'b.txt': 'b' });
      const askFirst = { code: 'invalid_request', message: expect.stringMatching(/needs your confirmation first: .*stopping what runs in 1 terminal \(sleep 300\)/), hint: expect.stringMatching(/[Cc]onfirm/) };
      await expect(page.call('workspace.attach', { chatId: chat.id, path: second, mode: 'readwrite' })).rejects.toMatchObject(askFirst);
      // Berth itself is held to the same question.
      await expect(core.workspace.attach({ chatId: chat.id, path: second, mode: 'readwrite' })).rejects.toMatchObject(askFirst);
      await expect(page.call('workspace.detach', { chatId: chat.id, path: first })).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/[Dd]etach/) });
      // Nothing changed: the folders are as they were and the command still runs in the same sandbox.
      expect((await attachmentsOf(chat.id))?.map((a) => a.hostPath)).toEqual([first]);
      expect((await core.terminal.busy({ chatId: chat.id })).terminals).toMatchObject([{ processes: ['sleep 300'] }]);

      // Confirmed: attached.
      const preview = (await page.call('workspace.attachPreview', { chatId: chat.id, action: 'attach', mode: 'readwrite', path: second })) as Preview;
      expect(preview.needsConfirmation).toBe(true);
      await page.call('workspace.attach', { chatId: chat.id, path: second, mode: 'readwrite', confirm: preview.token });
      expect((await attachmentsOf(chat.id))?.map((a) => a.hostPath)).toEqual([first, second]);
    } finally {
      page.dispose();
    }
  });
});

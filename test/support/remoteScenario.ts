/**
 * What every remote engine (ssh://, tcp:// with TLS) must show with a folder attached: the chat
 * works on a copy on that engine; the host folder changes only through Review's Apply; the
 * engine's own view of the container binds no path of this computer; read-write is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import type { EngineSetting } from '../../shared/contract.js';
import type { Harness } from './harness.js';
import { rejectionCode } from './tempDirs.js';
import { waitFor } from './waitFor.js';
import { REMOTE_REWRITE_NOTE } from '../../electron/main/terminal/copyRewrite.js';

/** What a terminal printed, as it arrives. */
function watchTerminal(core: BerthCore, terminalId: string) {
  let text = '';
  const sub = core.onEvent((event, payload) => {
    const p = payload as { terminalId: string; data: string };
    if (event === 'terminal.data' && p.terminalId === terminalId) text += p.data;
  });
  return { text: () => text, dispose: () => sub.dispose() };
}

export type Mounts = { Type: string; Source: string; Destination: string; RW: boolean }[];

export async function remoteReviewScenario(
  h: Harness,
  core: BerthCore,
  engine: EngineSetting,
  /** The remote daemon's inspect of a container: its Mounts. */
  remoteMounts: (containerId: string) => Promise<Mounts>,
  kind: string,
  image?: string,
): Promise<void> {
  const profile = await h.profile(core, { engine, ...(image ? { image } : {}) });
  const host = h.workspace('site', { 'a.txt': 'original\n', 'keep.txt': 'kept\n' });
  const chat = await core.chats.create({ profile: profile.name });
  const attached = await core.workspace.attach({ chatId: chat.id, path: host });
  expect(attached.attachment.mode).toBe('review');
  const hostPath = attached.attachment.hostPath;
  const target = attached.attachment.containerPath as string;

  const seen = await core.sandbox.exec({ chatId: chat.id, command: `cat ${target}/a.txt && cd ${target} && echo changed > a.txt && echo new > b.txt && touch $HOME/ok && echo done` });
  expect(seen).toMatchObject({ exitCode: 0, output: expect.stringMatching(/original\n[\s\S]*done/) });

  // Which engine: the sandbox details and the profile's engine status both name it.
  const status = await core.sandbox.status({ chatId: chat.id });
  expect(status.engine).toMatchObject({ kind, remote: true });
  expect(await core.engine.status({ profile: profile.name })).toMatchObject({ state: 'ok', engine: { kind } });

  // The remote daemon's own view of the container: volumes only, never a path of this computer.
  const mounts = await remoteMounts(status.containerId as string);
  expect(mounts.map((m) => m.Type)).toEqual(mounts.map(() => 'volume'));
  expect(mounts.map((m) => m.Destination).sort()).toEqual(['/home/berth', target].sort());
  expect(mounts.some((m) => m.Source.startsWith(host) || m.Source.startsWith(h.root))).toBe(false);

  // The host folder is untouched until Apply; the Changes panel lists the chat's changes.
  expect(fs.readFileSync(path.join(host, 'a.txt'), 'utf8')).toBe('original\n');
  expect(fs.existsSync(path.join(host, 'b.txt'))).toBe(false);
  const { copies } = await core.review.changes({ chatId: chat.id, diffs: true });
  expect(copies[0]?.files.map((f) => [f.path, f.status]).sort()).toEqual([
    ['a.txt', 'modified'],
    ['b.txt', 'added'],
  ]);
  expect(fs.readFileSync(path.join(host, 'a.txt'), 'utf8')).toBe('original\n');

  // Apply brings the change back, and only then.
  expect(await core.review.apply({ chatId: chat.id, hostPath })).toMatchObject({ ok: true });
  expect(fs.readFileSync(path.join(host, 'a.txt'), 'utf8')).toBe('changed\n');
  expect(fs.readFileSync(path.join(host, 'b.txt'), 'utf8')).toBe('new\n');
  expect(fs.readFileSync(path.join(host, 'keep.txt'), 'utf8')).toBe('kept\n');

  // Discard after more work: the copy there is rewritten from the folder, as on a local engine.
  // The sandbox there holds its own copy, so it starts again with the new one, and its terminal
  // starts again in place, saying why (on this computer nothing restarts: reviewKeep.test.ts).
  const term = await core.terminal.open({ chatId: chat.id, cols: 200, rows: 24 });
  const screen = watchTerminal(core, term.terminalId);
  await core.sandbox.exec({ chatId: chat.id, command: `echo again > ${target}/a.txt` });
  await core.review.discard({ chatId: chat.id, hostPath });
  expect((await core.sandbox.exec({ chatId: chat.id, command: `cat ${target}/a.txt` })).output).toBe('changed\n');
  await waitFor(async () => screen.text().includes(REMOTE_REWRITE_NOTE) || undefined, 'the terminal started again, saying why', 120_000);
  await core.terminal.input({ terminalId: term.terminalId, data: `echo "[$(cat ${target}/a.txt)]"\n` });
  await waitFor(async () => screen.text().includes('[changed]') || undefined, 'the rewritten copy in the same terminal', 60_000);
  expect((await core.terminal.list({ chatId: chat.id })).terminals.map((t) => t.state)).toEqual(['running']);
  screen.dispose();

  // A read-write attachment cannot be honoured there: refused with the reason, nothing started.
  const other = await core.chats.create({ profile: profile.name });
  await core.workspace.attach({ chatId: other.id, path: h.workspace('direct', { 'x.txt': 'x\n' }), mode: 'readwrite' });
  expect(await rejectionCode(core.sandbox.exec({ chatId: other.id, command: 'true' }))).toBe('workspace_refused');
  await core.chats.delete({ chatId: other.id });
  await core.chats.delete({ chatId: chat.id });
}

/**
 * Berth killed (SIGKILL) mid-turn, mid-write_file and mid-attach, then started again on the
 * same data: each turn shows as interrupted, no file is half written, the store is consistent,
 * and the next sweep leaves no container without its chat. One Berth process holds all three
 * at the moment of the kill, as a user with several chats busy would.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentMessage, ChatView } from '../../shared/contract.js';
import type { BerthCore } from '../../electron/main/core.js';
import type { RpcMessage } from '../../electron/main/host/testClient.js';
import { startBerthProcess, type BerthProcess } from '../support/berthProcess.js';
import { BUSYBOX, containersWithLabel, inspect } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest } from '../support/openaiTestServer.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let server: OpenAiTestServer;
const CONTENT = `${'0123456789abcdef'.repeat(40_000)}end\n`; // 640 KB: a write that takes a moment

const firstUser = (req: RecordedRequest) => String(req.body.messages.find((m) => m.role === 'user')?.content ?? '');

beforeAll(async () => {
  server = await startOpenAiTestServer({
    responder: (req) => {
      if (firstUser(req) === 'stream') return { hang: true };
      if (firstUser(req) === 'write') return { toolCalls: [{ name: 'write_file', arguments: { path: 'big.txt', content: CONTENT } }] };
      return { text: 'ok' };
    },
  });
});
afterAll(async () => {
  await h.cleanup();
  await server.close();
});

function notified(berth: BerthProcess, pick: (m: RpcMessage) => boolean, timeoutMs = 60_000) {
  return berth.rpc.waitFor(({ notifications }) => notifications.find(pick), timeoutMs);
}

describe('Berth killed mid-turn, mid-write_file and mid-attach', () => {
  it('comes back with the turns shown as interrupted, whole files, a consistent store and no orphan container', async () => {
    const dataDir = h.dataDir();
    const folders = { write: h.workspace('write'), attach: h.workspace('attach', { 'keep.txt': 'keep\n' }) };
    let core: BerthCore | null = null;
    const berth = await startBerthProcess(dataDir);
    try {
      const profile = 'crash';
      await berth.call('profiles.create', { name: profile, image: BUSYBOX, agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' } });
      const chat = async (title: string) => (await berth.call<ChatView>('chats.create', { profile, title })).id;
      const streaming = await chat('mid-turn');
      const writing = await chat('mid-write');
      const attaching = await chat('mid-attach');
      await berth.call('workspace.attach', { chatId: writing, path: folders.write, mode: 'readwrite' });
      await berth.call('sandbox.exec', { chatId: attaching, command: 'true' });

      // A turn whose model is still streaming.
      await berth.call('agent.send', { chatId: streaming, text: 'stream' });
      await waitFor(async () => server.requests.some((r) => firstUser(r) === 'stream'), 'the streaming request to reach the model', 60_000);
      // A turn whose write_file is running in the sandbox.
      const writeRunning = notified(berth, (m) => {
        const msg = (m.params as { message?: AgentMessage } | undefined)?.message;
        return m.method === 'agent.message' && msg?.chatId === writing && msg.toolCalls.some((c) => c.name === 'write_file' && c.status === 'running');
      });
      await berth.call('agent.send', { chatId: writing, text: 'write' });
      await writeRunning;
      // An attach on its way, and the kill.
      berth.rpc.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'attach', method: 'workspace.attach', params: { chatId: attaching, path: folders.attach, mode: 'readwrite' } }));
      await berth.kill();

      // The store, before Berth opens it again: whole and consistent.
      const db = new Database(path.join(dataDir, 'berth.sqlite3'));
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('foreign_key_check')).toEqual([]);
      } finally {
        db.close();
      }

      core = h.core({ dataDir });
      await core.ready;
      for (const chatId of [streaming, writing]) {
        const { messages, running } = await core.agent.history({ chatId });
        expect(running).toBe(false);
        expect(messages.at(-1)).toMatchObject({ role: 'error', content: expect.stringMatching(/interrupted/) });
        expect(messages.flatMap((m) => m.toolCalls).filter((c) => c.status === 'running' || c.status === 'awaiting_approval')).toEqual([]);
      }
      const write = (await core.agent.history({ chatId: writing })).messages.flatMap((m) => m.toolCalls).find((c) => c.name === 'write_file');
      expect(write?.status).toBe('cancelled');

      // The write is all or nothing: the file is whole or absent, and no temporary file stays
      // once the sandbox's shell has finished what it was given.
      const big = path.join(folders.write, 'big.txt');
      await waitFor(async () => !fs.readdirSync(folders.write).some((f) => f.includes('berth-write')), 'the temporary file of the write to go', 30_000);
      if (fs.existsSync(big)) expect(fs.readFileSync(big, 'utf8')).toBe(CONTENT);

      // The attach happened entirely or not at all, and the folder is untouched.
      const attached = (await core.chats.list({ profile })).chats.find((c) => c.id === attaching)?.attachments ?? [];
      expect(attached.length === 0 || attached[0]?.hostPath === fs.realpathSync(folders.attach)).toBe(true);
      expect(fs.readFileSync(path.join(folders.attach, 'keep.txt'), 'utf8')).toBe('keep\n');

      // The next sweep: every sandbox of this profile has its chat, one per chat. Besides them a
      // Berth may run one egress proxy per 'allowlist' profile (the default egress), and the
      // default profile's warm sandbox when its image is on the engine: neither is an orphan.
      await core.reap();
      const ids = await containersWithLabel(`berth.instance=${core.instanceId}`);
      const labels = await Promise.all(ids.map(async (id) => (await inspect<{ Config: { Labels: Record<string, string> } }>(id)).Config.Labels));
      const proxies = labels.filter((l) => l['berth.egress'] === 'proxy').map((l) => l['berth.profile']);
      expect(new Set(proxies).size).toBe(proxies.length);
      const chatsOf = labels.filter((l) => l['berth.egress'] !== 'proxy' && l['berth.profile'] === profile).map((l) => l['berth.chat']);
      expect(chatsOf.every((c) => [streaming, writing, attaching].includes(c ?? ''))).toBe(true);
      expect(new Set(chatsOf).size).toBe(chatsOf.length);

      // And the chats work again: a command, and a new turn.
      for (const chatId of [streaming, writing, attaching]) expect((await core.sandbox.exec({ chatId, command: 'echo back' })).output).toBe('back\n');
      if (attached.length) expect((await core.sandbox.exec({ chatId: attaching, command: 'cat /workspace/keep.txt' })).output).toBe('keep\n');
    } finally {
      await berth.kill();
      // Whatever happened, a core on this data records its instance, so cleanup removes its containers.
      if (!core) h.core({ dataDir });
    }
  }, 240_000);
});

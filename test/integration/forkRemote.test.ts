/**
 * Fork a chat whose sandbox runs on an ssh:// engine (an sshd on 127.0.0.1 in front of this
 * machine's engine): there the chat's home is a volume of that engine, and the fork gets a copy of
 * it made there (sandbox/remoteHomeCopy), owned by the sandbox user, links as links; the two
 * homes are apart from then on, and deleting the chats removes both volumes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { runTurn } from '../support/agentDriver.js';
import { engineApi } from '../support/environmentImages.js';
import { Harness } from '../support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../support/openaiTestServer.js';
import { TestSshd, sshdMissing } from '../support/sshd.js';

const KEY = 'sk-test-0123456789abcdef';
const h = new Harness();
const missing = sshdMissing();
if (missing) console.warn(`forkRemote.test.ts: skipping the ssh:// fork tests: ${missing}`);
const sshd = new TestSshd();
let server: OpenAiTestServer;

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
  if (!missing) await sshd.start();
}, 60_000);
afterAll(async () => {
  await h.cleanup();
  await server.close();
  await sshd.dispose();
}, 240_000);

const volumesOf = async (chatId: string) => ((await engineApi.listVolumes({ filters: { label: [`berth.chat=${chatId}`] } })).Volumes ?? []).map((v) => v.Name);

/** A core, a profile on the ssh:// engine with the scripted model, and a chat in it. */
async function remoteChat(): Promise<{ core: BerthCore; chat: { id: string } }> {
  const core: BerthCore = h.core({ knownHostsFiles: [sshd.knownHostsFile] });
  const profile = (await h.profile(core, {
    egress: 'none', engine: { kind: 'ssh', url: sshd.url, identityFile: sshd.identityFile },
    agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' },
  })).name;
  await core.agent.setKey({ profile, apiKey: KEY });
  return { core, chat: await core.chats.create({ profile, title: 'remote' }) };
}

describe.skipIf(missing !== null)('Fork a chat on an ssh:// engine', () => {
  it('the fork has a copy of the chat’s home there, its own from then on, and deleting the chats leaves no volume', async () => {
    const { core, chat } = await remoteChat();
    const home = 'mkdir -p "$HOME/deep" && echo remembered > "$HOME/deep/notes.txt" && ln -s /etc/passwd "$HOME/planted"';
    server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: home } }] }, { text: 'Noted.' }));
    expect((await runTurn(core, chat.id, 'remember')).error).toBeNull();
    expect((await core.sandbox.status({ chatId: chat.id })).engine).toMatchObject({ kind: 'ssh', remote: true });
    const turn = (await core.agent.history({ chatId: chat.id })).messages.find((m) => m.role === 'user')!;

    const fork = await core.chats.fork({ chatId: chat.id, messageId: turn.id });
    const run = async (chatId: string, command: string) => (await core.sandbox.exec({ chatId, command })).output;
    expect(await run(fork.chatId, 'cat "$HOME/deep/notes.txt"; readlink "$HOME/planted"; [ "$(stat -c %u "$HOME/deep/notes.txt")" = "$(id -u)" ] && [ "$(stat -c %u "$HOME")" = "$(id -u)" ] && echo owned'))
      .toBe('remembered\n/etc/passwd\nowned\n');
    expect((await core.sandbox.status({ chatId: fork.chatId })).engine).toMatchObject({ kind: 'ssh', remote: true });
    // Two homes from here on: the fork's write is its own.
    expect(await run(fork.chatId, 'echo mine > "$HOME/deep/notes.txt" && cat "$HOME/deep/notes.txt"')).toBe('mine\n');
    expect(await run(chat.id, 'cat "$HOME/deep/notes.txt"')).toBe('remembered\n');

    await core.chats.delete({ chatId: chat.id });
    expect(await run(fork.chatId, 'cat "$HOME/deep/notes.txt"')).toBe('mine\n');
    expect(await volumesOf(chat.id)).toEqual([]);
    await core.chats.delete({ chatId: fork.chatId });
    expect(await volumesOf(fork.chatId)).toEqual([]);
  }, 300_000);

  it('a fork made before its first command still loses its home volume when it is deleted', async () => {
    const { core, chat } = await remoteChat();
    server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo x > "$HOME/x"' } }] }, { text: 'Done.' }));
    expect((await runTurn(core, chat.id, 'go')).error).toBeNull();
    const turn = (await core.agent.history({ chatId: chat.id })).messages.find((m) => m.role === 'user')!;
    const fork = await core.chats.fork({ chatId: chat.id, messageId: turn.id });
    expect(await volumesOf(fork.chatId)).toHaveLength(1);
    await core.chats.delete({ chatId: fork.chatId });
    expect(await volumesOf(fork.chatId)).toEqual([]);
  }, 300_000);
});

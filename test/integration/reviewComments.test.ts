/**
 * Comments on lines of the chat's changes reach the chat's agent: the scripted model receives one
 * message with each comment's file, line range, quoted lines and words. A comment stays on its
 * lines and is marked outdated once the chat changes them; it persists in the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { nextEvent } from '../support/events.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from '../support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../support/openaiTestServer.js';

const KEY = 'sk-test-0123456789abcdef';
const h = new Harness();
let server: OpenAiTestServer;
let core: BerthCore;

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
  core = h.core();
});
afterAll(async () => {
  await h.cleanup();
  await server.close();
});

describe('Review comments', () => {
  it('the agent receives file, lines, quoted lines and the comment; a changed line makes its comment outdated', async () => {
    const p = await h.profile(core, { image: 'berth-test:busybox', agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' } });
    await core.agent.setKey({ profile: p.name, apiKey: KEY });
    const chat = await core.chats.create({ profile: p.name, title: 'comments' });
    const folder = h.workspace('commented', { 'app.js': 'const a = 1;\nconst b = 2;\nconst c = 3;\n' });
    chownTree(folder, SANDBOX_UID, SANDBOX_GID);
    const { attachment } = await core.workspace.attach({ chatId: chat.id, path: folder });
    const hostPath = attachment.hostPath;
    await core.sandbox.exec({ chatId: chat.id, command: "printf 'const a = 1;\\nconst bee = 2;\\nconst cee = 3;\\nconst d = 4;\\n' > /workspace/app.js" });

    const first = await core.review.comment({ chatId: chat.id, hostPath, path: 'app.js', side: 'new', startLine: 2, endLine: 3, body: 'Why rename these?' });
    await core.review.comment({ chatId: chat.id, hostPath, path: 'app.js', side: 'old', startLine: 2, endLine: 2, body: 'Keep b.' });
    expect(first).toMatchObject({ quote: ['const bee = 2;', 'const cee = 3;'], state: 'draft', outdated: false });
    expect((await core.review.comments({ chatId: chat.id })).comments).toHaveLength(2);

    server.setResponder(byTurn({ text: 'I will look at them.' }));
    const ended = nextEvent(core, 'agent.state', (s) => s.chatId === chat.id && !s.running, 60_000);
    const sent = await core.review.sendComments({ chatId: chat.id });
    expect(sent.sent).toBe(2);
    await ended;
    const told = server.requests[0]!.body.messages.filter((m) => m.role === 'user').map((m) => String(m.content)).join('\n');
    expect(told).toContain('(2 comments)');
    expect(told).toContain('/workspace/app.js, lines 2-3:\n```\nconst bee = 2;\nconst cee = 3;\n```\nWhy rename these?');
    expect(told).toContain('/workspace/app.js, line 2 (lines you removed):\n```\nconst b = 2;\n```\nKeep b.');

    // The chat changes the commented lines: the comment is outdated, still there until resolved.
    await core.sandbox.exec({ chatId: chat.id, command: "printf 'const a = 1;\\nconst BEE = 2;\\nconst cee = 3;\\n' > /workspace/app.js" });
    const now = (await core.review.comments({ chatId: chat.id })).comments;
    expect(now.find((c) => c.id === first.id)).toMatchObject({ state: 'sent', outdated: true });
    await core.review.commentClose({ chatId: chat.id, id: first.id, action: 'resolve' });
    expect((await core.review.comments({ chatId: chat.id })).comments.map((c) => c.body)).toEqual(['Keep b.']);
    await expect(core.review.sendComments({ chatId: chat.id })).rejects.toThrow('There are no comments to send.');
  });
});

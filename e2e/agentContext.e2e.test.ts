/**
 * The agent's second round in real Chromium against the real host and engine: an MCP server's
 * tool called through an approval (the server a python3 script in the chat's sandbox), and a
 * conversation pushed past a small context window showing "Earlier turns summarised" with the
 * summary one click away.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../electron/main/agent/provider/openaiClient.js';
import { createCore } from '../electron/main/core.js';
import { SANDBOX_GID, SANDBOX_UID, uniqueName, writeTree } from '../test/support/harness.js';
import { SERVER_PY } from '../test/support/mcpServer.js';
import { startOpenAiTestServer, type OpenAiTestServer, type Step } from '../test/support/openaiTestServer.js';
import { openApp, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import { attach } from './support/ui.js';

const KEY = 'sk-e2e-77c1d0a9e3';
let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;
const profile = uniqueName('mcp');

beforeAll(async () => {
  root = tempRoot();
  provider = await startOpenAiTestServer({ apiKey: KEY });
  // Summaries have no tools; "read the notes" calls the MCP tool; anything else prints a long line.
  provider.setResponder((req): Step => {
    if (!req.body.tools) return { text: 'SUMMARY-E2E: the user asked for notes and long lines.' };
    const last = req.body.messages.at(-1) as ChatMessage;
    const asked = String(req.body.messages.filter((m) => m.role === 'user').at(-1)?.content);
    if (last.role === 'tool') return { text: `Done with step ${asked.match(/\((\d+)\)/)?.[1] ?? '1'}.` };
    if (String(last.content).includes('read the notes')) return { toolCalls: [{ name: 'mcp__files__read_path', arguments: { path: '/workspace/notes.txt' } }] };
    return { toolCalls: [{ name: 'terminal', arguments: { command: "head -c 3000 /dev/zero | tr '\\0' x" } }] };
  });
  // The profile with its MCP server and a small window (fields the profile form does not show).
  const dataDir = fs.mkdtempSync(path.join(root, 'host-data-'));
  const setup = createCore({ dataDir, reapIntervalMs: 0 });
  await setup.profiles.create({
    name: profile, image: 'berth-test:bookworm', egress: 'none',
    agent: { baseUrl: provider.baseUrl, model: 'test-model', approval: 'auto', contextWindow: 4096, mcpServers: [{ name: 'files', command: ['python3', '/workspace/tools/server.py'], approval: 'ask' }] },
  });
  await setup.agent.setKey({ profile, apiKey: KEY });
  await setup.dispose();
  ({ host, browser, page } = await openApp(root, { at: { dataDir } }));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await provider?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('MCP and compaction in the browser', () => {
  it('calls an MCP tool after the user allows it, and shows that earlier turns were summarised', async () => {
    const folder = path.join(root, 'project');
    writeTree(folder, { 'tools/server.py': SERVER_PY, 'notes.txt': 'NOTES-E2E' }, SANDBOX_UID, SANDBOX_GID);
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await attach(page, folder, 'Read-write');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    const conversation = page.getByRole('region', { name: 'Conversation' });
    const send = async (text: string) => {
      await conversation.getByRole('textbox', { name: 'Message' }).fill(text);
      await page.keyboard.press('Enter');
    };

    await send('read the notes');
    const approval = conversation.getByRole('group', { name: 'Approval needed' });
    await approval.waitFor({ timeout: 120_000 });
    await expect.poll(() => approval.textContent()).toContain('files: read_path');
    await approval.getByRole('button', { name: 'Allow once' }).click();
    const card = conversation.getByRole('group', { name: /^mcp__files__read_path: files: read_path/ });
    await card.waitFor({ timeout: 60_000 });
    await conversation.getByText('Done with step 1.').waitFor({ timeout: 60_000 });
    expect(JSON.stringify(provider.requests.at(-1)?.body.messages)).toContain(`uid=${SANDBOX_UID} NOTES-E2E`);
    await shot(page, 'agent-mcp-call');

    const notice = conversation.getByRole('note', { name: 'Earlier turns summarised' });
    for (let i = 2; i <= 8 && !(await notice.isVisible()); i++) {
      await send(`print a long line, please (${i})`);
      await conversation.getByText(`Done with step ${i}.`).waitFor({ timeout: 60_000 });
    }
    await notice.waitFor({ timeout: 10_000 });
    await notice.getByText(/Earlier turns summarised/).click();
    await notice.getByText('SUMMARY-E2E: the user asked for notes and long lines.').waitFor();
    await shot(page, 'agent-compaction-notice');
  });
});

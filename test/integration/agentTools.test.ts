/**
 * The agent's edit, search, find and ranged-read tools against the real engine, on a busybox
 * image and a Debian one (their grep, find, stat and base64 differ), driven by the scripted
 * model. Every file is read and written inside the sandbox, as its user.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { history, runTurn, toolCalls } from '../support/agentDriver.js';
import { Harness, SANDBOX_UID } from '../support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest, type Step } from '../support/openaiTestServer.js';

const KEY = 'sk-test-0123456789abcdef';
const h = new Harness();
let server: OpenAiTestServer;
let core: BerthCore;

const toolResults = (req: RecordedRequest) => req.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
/** What the model was told by each tool call, in order: the last request carries them all. */
const results = () => toolResults(server.requests.at(-1) as RecordedRequest);

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
  core = h.core();
});
afterAll(async () => {
  await h.cleanup();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

describe.each(['berth-test:busybox', 'berth-test:bookworm'])('the agent’s file tools on %s', (image) => {
  async function chat(files: Record<string, string>, approval: 'ask' | 'auto' = 'auto') {
    // A window large enough that the tools' own caps, not the context's cut of long results
    // (a fifth of the window; agentContext.test covers it), decide what a result holds.
    const p = await h.profile(core, { image, agent: { baseUrl: server.baseUrl, model: 'test-model', approval, contextWindow: 200_000 } });
    await core.agent.setKey({ profile: p.name, apiKey: KEY });
    const c = await core.chats.create({ profile: p.name, title: 'tools' });
    const folder = h.workspace('project', files);
    await core.workspace.attach({ chatId: c.id, path: folder, mode: 'readwrite' });
    return { chatId: c.id, folder };
  }
  async function turn(chatId: string, ...steps: Step[]) {
    server.setResponder(byTurn(...steps, { text: 'done' }));
    expect((await runTurn(core, chatId, 'go', undefined, 120_000)).error).toBeNull();
  }

  it('edits a file in place, keeping its mode, and shows the change as a diff', async () => {
    const { chatId, folder } = await chat({ 'app.sh': '#!/bin/sh\necho old\nexit 0\n' });
    fs.chmodSync(path.join(folder, 'app.sh'), 0o750);
    await turn(chatId, { toolCalls: [{ name: 'edit_file', arguments: { path: 'app.sh', edits: [{ old_string: 'echo old', new_string: 'echo new' }] } }] });
    const file = path.join(folder, 'app.sh');
    expect(fs.readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho new\nexit 0\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o750);
    expect(fs.statSync(file).uid).toBe(SANDBOX_UID);
    expect(fs.readdirSync(folder)).toEqual(['app.sh']);
    expect(results()).toEqual(['Edited /workspace/app.sh: 1 replacement.']);
    const [card] = toolCalls(await history(core, chatId));
    expect(card).toMatchObject({ name: 'edit_file', status: 'done', command: 'edit /workspace/app.sh' });
    expect(card?.diff).toContain('@@ -1,3 +1,3 @@\n #!/bin/sh\n-echo old\n+echo new\n exit 0\n');
  });

  it('refuses an ambiguous edit with the count, and a multi-edit with one bad edit changes nothing', async () => {
    const before = 'x = 1\ny = 2\nx = 1\n';
    const { chatId, folder } = await chat({ 'v.txt': before });
    await turn(
      chatId,
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'v.txt', edits: [{ old_string: 'x = 1', new_string: 'x = 3' }] } }] },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'v.txt', edits: [{ old_string: 'y = 2', new_string: 'y = 5' }, { old_string: 'z = 9', new_string: 'z = 0' }] } }] },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'v.txt', edits: [{ old_string: 'x = 1', new_string: 'x = 4', replace_all: true }, { old_string: 'y = 2', new_string: 'y = 6' }] } }] },
    );
    const [ambiguous, oneBad, good] = results();
    expect(ambiguous).toMatch(/^Refused: The edit: old_string occurs 2 times/);
    expect(oneBad).toMatch(/^Refused: Edit 2 of 2: old_string was not found/);
    expect(good).toBe('Edited /workspace/v.txt: 3 replacements.');
    expect(fs.readFileSync(path.join(folder, 'v.txt'), 'utf8')).toBe('x = 4\ny = 6\nx = 4\n');
    const cards = toolCalls(await history(core, chatId));
    expect(cards.map((c) => c.status)).toEqual(['failed', 'failed', 'done']);
  });

  it('does not overwrite a change made between the read and the write', async () => {
    const { chatId, folder } = await chat({ 'n.txt': 'alpha\n' }, 'ask');
    const file = path.join(folder, 'n.txt');
    server.setResponder(byTurn({ toolCalls: [{ name: 'edit_file', arguments: { path: 'n.txt', edits: [{ old_string: 'alpha', new_string: 'beta' }] } }] }, { text: 'ok' }));
    const asked: (string | null)[] = [];
    const end = await runTurn(core, chatId, 'edit', (a) => {
      asked.push(a.detail);
      // The user saves the file while the edit waits for approval.
      fs.writeFileSync(file, 'alpha, edited by the user\n');
      void core.agent.approve({ chatId, approvalId: a.approvalId, decision: 'once' });
    });
    expect(end.error).toBeNull();
    expect(asked[0]).toContain('-alpha\n+beta');
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha, edited by the user\n');
    expect(results()[0]).toMatch(/^Refused: \/workspace\/n.txt changed after it was read/);
    expect(fs.readdirSync(folder)).toEqual(['n.txt']);
  });

  it('searches with a glob and caps the matches; finds files by glob', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `needle ${i}`).join('\n');
    const { chatId } = await chat({
      'src/a.ts': 'const needle = 1;\n',
      'src/deep/b.ts': 'let x;\n// NEEDLE here\n',
      'docs/c.md': 'a needle in the docs\n',
      'node_modules/dep/index.ts': 'needle\n',
      'many.txt': many,
    });
    await turn(
      chatId,
      { toolCalls: [{ name: 'search', arguments: { pattern: 'need(le)', glob: '*.ts', ignore_case: true } }] },
      { toolCalls: [{ name: 'search', arguments: { pattern: '^needle [0-9]+$' } }] },
      { toolCalls: [{ name: 'search', arguments: { pattern: 'needle', glob: 'docs/**/*.md' } }, { name: 'search', arguments: { pattern: 'nothing-like-this' } }] },
      { toolCalls: [{ name: 'find_files', arguments: { pattern: 'src/**/*.ts' } }, { name: 'find_files', arguments: { pattern: '*.md' } }] },
    );
    const [ts, capped, docs, none, found, md] = results();
    expect(ts?.split('\n').sort()).toEqual(['/workspace/src/a.ts:1:const needle = 1;', '/workspace/src/deep/b.ts:2:// NEEDLE here']);
    const lines = capped?.split('\n') ?? [];
    expect(lines).toHaveLength(201);
    expect(lines[0]).toMatch(/^\/workspace\/many.txt:\d+:needle \d+$/);
    expect(lines.at(-1)).toBe('[200 matches shown; more were left out. Narrow the pattern, path or glob to see the rest.]');
    expect(docs).toBe('/workspace/docs/c.md:1:a needle in the docs');
    expect(none).toBe('No matches.');
    expect(found).toBe('/workspace/src/a.ts\n/workspace/src/deep/b.ts');
    expect(md).toBe('/workspace/docs/c.md');
  });

  it('reads a 100 MB file capped, says what was left out, and reads a range of its lines', async () => {
    const { chatId } = await chat({});
    const bytes = 100_000_000;
    await turn(
      chatId,
      // 100 MB of 10-byte lines, and 100 MB in one line: written in the sandbox, by the sandbox
      // (yes ends on the closed pipe: `|| true`, as commands run with pipefail).
      { toolCalls: [{ name: 'terminal', arguments: { command: `cd /workspace && { yes 123456789 || true; } | head -c ${bytes} > big.txt && head -c ${bytes} /dev/zero | tr '\\000' a > oneline.txt && ls` } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }, { name: 'read_file', arguments: { path: 'big.txt', offset: 5_000_000, limit: 2 } }, { name: 'read_file', arguments: { path: 'oneline.txt' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt', offset: 20_000_000 } }] },
    );
    const [listing, whole, range, oneLine, past] = results();
    expect(listing).toContain('big.txt');
    expect(Buffer.byteLength(whole ?? '')).toBeLessThan(61_000);
    expect(whole).toMatch(/\n\[shown: lines 1–6000 of 10000000 lines, 100000000 bytes in all \(a read returns at most 60000 bytes\); the rest was left out\. Read on with offset 6001\.\]$/);
    expect(range).toBe('123456789\n123456789\n[shown: lines 5000000–5000001 of 10000000 lines, 100000000 bytes in all; the rest was left out. Read on with offset 5000002.]');
    expect(Buffer.byteLength(oneLine ?? '')).toBeLessThan(61_000);
    expect(oneLine).toMatch(/^a{60000}\n\[shown: the first 60000 bytes of line 1 of 1 lines, 100000000 bytes in all/);
    expect(past).toBe('[line 20000000 is past the end: the file has 10000000 lines]');
  });
});

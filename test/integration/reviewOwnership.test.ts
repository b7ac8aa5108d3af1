/**
 * Every write Berth makes into a chat's copy (Undo this turn, Restore, Discard, Refresh) leaves
 * the files and folders the sandbox's: Berth runs as root here, the sandbox as uid 1000, and a
 * file Berth wrote back as root 0644 could no longer be edited by the chat or its agent. And the
 * agent's tool card shows the command's real status, not the last stage of its pipeline.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { runTurn, toolCalls } from '../support/agentDriver.js';
import { BUSYBOX } from '../support/docker.js';
import { Harness, SANDBOX_GID, SANDBOX_UID } from '../support/harness.js';
import { queue, startOpenAiTestServer, type OpenAiTestServer, type Step } from '../support/openaiTestServer.js';
import { ReviewScenario } from '../support/reviewScenario.js';

const KEY = 'sk-test-0123456789abcdef';
const h = new Harness();
let core: BerthCore;
let dataDir: string;
let profile: string;
let server: OpenAiTestServer;
const s = new ReviewScenario(h, () => core, () => dataDir, () => profile);

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
  ({ core, dataDir, profile } = await h.agentCore(server, KEY, BUSYBOX));
});
afterAll(async () => {
  await h.cleanup();
  await server.close();
});

/** One agent turn that runs `command` in the terminal; the tool card it left. */
async function agentRuns(chatId: string, command: string, more: Step[] = []) {
  server.setResponder(queue(...more, { toolCalls: [{ name: 'terminal', arguments: { command } }] }, { text: 'Done.' }));
  expect((await runTurn(core, chatId, command)).error).toBeNull();
  return toolCalls((await core.agent.history({ chatId })).messages).at(-1)!;
}

/** What in the copy is not the sandbox user's, as the sandbox sees it, and what it cannot write. */
async function notTheSandboxes(chatId: string): Promise<string> {
  return s.sh(
    chatId,
    `find . -path ./.git -prune -o -print | while read -r p; do o=$(stat -c '%u:%g' "$p"); [ "$o" = '${SANDBOX_UID}:${SANDBOX_GID}' ] || echo "$o $p"; ` +
      `if [ -d "$p" ]; then { touch "$p/.probe" && rm "$p/.probe"; } 2>/dev/null || echo "cannot create in $p"; ` +
      `elif [ -f "$p" ] && ! [ -w "$p" ]; then echo "cannot write $p"; fi; done`,
  );
}

describe('Review mode: what Berth writes into a copy stays the sandbox’s', () => {
  it('after Undo this turn, Restore, Discard and Refresh the chat and its agent can still edit every file and folder', async () => {
    const repo = s.userRepo('owned');
    const { chatId, hostPath } = await s.reviewChat(repo);
    await agentRuns(chatId, 'mkdir -p made/deep && echo one > made/deep/one.txt && echo chat > a.txt');
    await agentRuns(chatId, 'echo two > src/main.js && rm c.txt && mkdir -p other/inner && echo o > other/inner/o.txt', [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'made/deep/two.txt', content: 'two\n' } }] },
    ]);
    const turns = (await core.agent.history({ chatId })).messages.filter((m) => m.role === 'user');

    // Undo this turn writes back src/main.js and c.txt.
    await core.review.undoTurn({ chatId, messageId: turns[1]!.id });
    expect(await s.sh(chatId, 'cat src/main.js c.txt; test ! -e other && echo no-other')).toBe('console.log(1);\nc1\nno-other\n');
    expect(await notTheSandboxes(chatId)).toBe('');

    // Restoring the point before the undo makes folders again (other/inner) and files in them.
    const before = (await core.review.checkpoints({ chatId })).checkpoints.find((c) => c.reason === 'undo')!;
    await core.review.restore({ chatId, checkpointId: before.id });
    expect(await s.sh(chatId, 'cat other/inner/o.txt made/deep/two.txt')).toBe('o\ntwo\n');
    expect(await notTheSandboxes(chatId)).toBe('');

    // Discard writes the user's versions back.
    await core.review.discard({ chatId, hostPath });
    expect(await s.sh(chatId, 'cat a.txt; test ! -e made && echo no-made')).toBe('a1\nno-made\n');
    expect(await notTheSandboxes(chatId)).toBe('');

    // Refresh brings the user's new folder and edit in.
    fs.mkdirSync(path.join(repo, 'fromuser/deep'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'fromuser/deep/u.txt'), 'u\n');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'user edit\n');
    expect((await core.review.refresh({ chatId, hostPath })).updated.sort()).toEqual(['a.txt', 'fromuser/deep/u.txt']);
    expect(await notTheSandboxes(chatId)).toBe('');

    // The agent edits what Berth wrote and creates in its folders.
    const card = await agentRuns(chatId, 'echo agent >> a.txt && echo v > fromuser/deep/v.txt && echo x >> src/main.js');
    expect(card).toMatchObject({ exitCode: 0, status: 'done' });
    expect(await s.sh(chatId, 'cat a.txt fromuser/deep/v.txt')).toBe('user edit\nagent\nv\n');
  });

  it('shows a failed command as failed on its tool card, also when its output is piped through tail', async () => {
    const repo = s.userRepo('status');
    const { chatId } = await s.reviewChat(repo);
    const card = await agentRuns(chatId, "sh -c 'echo could not write >&2; exit 3' 2>&1 | tail -n 5");
    expect(card).toMatchObject({ exitCode: 3, output: expect.stringContaining('could not write') });
    expect(card.status).not.toBe('done');
    // A pipeline that succeeds is still a success, and `tail` still shows the output.
    expect(await agentRuns(chatId, 'seq 1 3 | tail -n 1')).toMatchObject({ exitCode: 0, status: 'done', output: expect.stringContaining('3') });
  });
});

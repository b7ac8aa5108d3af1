/**
 * The mount race: Docker resolves a bind source again inside every start, so a process that
 * can rename entries in an attached folder's parent can swap the folder for a symlink in the
 * instant between Berth's last check and the mount. Berth must prove, after the start and
 * before anything runs, that each bind is the folder it checked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { BerthError } from '../../shared/errors.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, writeTree } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
const RESTARTS = 16;
let core: BerthCore;
let profile: string;

beforeAll(async () => {
  ({ core, profile } = await h.coreWithProfile());
});
afterAll(() => h.cleanup());

/** Exchanges two names with renameat2(RENAME_EXCHANGE) in a loop until killed; prints "go" once running. */
const EXCHANGE_LOOP = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
renameat2 = libc.renameat2
renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
a, b = sys.argv[1].encode(), sys.argv[2].encode()
print("go", flush=True)
while True:
    if renameat2(-100, a, -100, b, 2) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
    time.sleep(0.0001)
`;

function startExchange(a: string, b: string): Promise<ChildProcess> {
  const child = spawn('python3', ['-c', EXCHANGE_LOOP, a, b], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the exchange loop exited (${code})`)));
    child.stdout?.once('data', () => resolve(child));
  });
}

describe('the mount race', () => {
  it('a folder swapped for a symlink to a decoy during start never runs anything with the decoy mounted', async () => {
    const ws = h.workspace('ws', { WHO: 'real\n' });
    const parent = path.dirname(ws);
    const decoy = path.join(h.root, `decoy-${path.basename(parent)}`);
    writeTree(decoy, { WHO: 'decoy\n' }, SANDBOX_UID, SANDBOX_GID);
    const link = path.join(parent, 'link');
    fs.symlinkSync(decoy, link);

    const chat = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    expect((await core.sandbox.exec({ chatId: chat.id, command: 'cat /workspace/WHO' })).output).toBe('real\n');

    const swapper = await startExchange(ws, link);
    const seen = { real: 0, decoy: 0, refused: 0 };
    try {
      // Bounded: a number of restarts, not a time; each one is a fresh chance for the race.
      for (let i = 0; i < RESTARTS; i++) {
        await core.sandbox.stop({ chatId: chat.id });
        try {
          const out = await core.sandbox.exec({ chatId: chat.id, command: 'cat /workspace/WHO' });
          if (out.output === 'decoy\n') seen.decoy++;
          else if (out.output === 'real\n') seen.real++;
          else throw new Error(`unexpected output ${JSON.stringify(out.output)}`);
        } catch (error) {
          if (!(error instanceof BerthError) || error.code !== 'workspace_changed') throw error;
          seen.refused++;
        }
      }
    } finally {
      swapper.kill('SIGKILL');
      await waitFor(async () => swapper.exitCode !== null || swapper.signalCode !== null, 'the exchange loop to end');
    }
    console.log(`mount race over ${RESTARTS} restarts: ${JSON.stringify(seen)}`);
    expect(seen.decoy).toBe(0);
    // The race was really run: some starts met a swapped folder and were refused.
    expect(seen.refused).toBeGreaterThan(0);
  }, 120_000);
});

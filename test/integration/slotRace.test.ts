/**
 * A pooled chat's slot folder while the chat keeps running: Berth lays the slot out again and
 * removes a copy from it (a second Review-mode folder arrives, then goes) while a process the
 * chat left behind, standing in a folder of the copy, swaps a folder there for a link to a host
 * folder as fast as it can. It keeps its place when Berth moves that folder out of the mount, so
 * whatever Berth then does there by path can be steered through the link. Nothing on the host
 * outside the slot may be created, moved, removed or written, and the sandbox must never see
 * what the host folder holds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { LABEL } from '../../electron/main/policy/containerSpec.js';
import { BOOKWORM, docker } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
const hostDirs: string[] = [];
afterAll(async () => {
  await h.cleanup();
  for (const d of hostDirs) fs.rmSync(d, { recursive: true, force: true });
}, 120_000);

async function sh(core: BerthCore, chatId: string, command: string): Promise<string> {
  const r = await core.sandbox.exec({ chatId, command });
  if (r.exitCode !== 0) throw new Error(`${command} exited ${r.exitCode}: ${r.output}`);
  return r.output;
}

async function pooledChat(core: BerthCore, profile: string): Promise<string> {
  const warmChats = async () => (await docker('ps', '-a', '--filter', `label=${LABEL.instance}=${core.instanceId}`, '--filter', `label=${LABEL.profile}=${profile}`,
    '--format', `{{.Label "${LABEL.chat}"}}`)).split('\n').filter(Boolean);
  await waitFor(async () => (await warmChats()).length > 0 || undefined, 'a warm sandbox', 60_000);
  const warm = new Set(await warmChats());
  const chat = await core.chats.create({ profile });
  expect(warm.has(chat.id), 'the chat took a warm sandbox').toBe(true);
  return chat.id;
}

/** The files a host folder holds, with their bytes (it has no folders). */
const hostState = (dir: string) => fs.readdirSync(dir).sort().map((n) => `${n}=${fs.readFileSync(path.join(dir, n), 'utf8')}`);

/**
 * Leaves a perl process in the sandbox, standing in `dir`: it waits until `gone` no longer
 * exists (Berth moved its folder out of the mount), then puts a link `l` to the host folder
 * beside `d` and swaps the two with renameat2(RENAME_EXCHANGE) (x86_64 syscall 316) for a few
 * seconds, a pause of 0.3 ms after each (long enough for Berth to take several steps in each
 * state). `gone` null: it starts at once.
 */
async function leaveSwapper(core: BerthCore, chatId: string, dir: string, hostDir: string, gone: string | null): Promise<void> {
  const wait = gone ? `while (-e "${gone}") {} ` : '';
  const perl = `${wait}symlink("${hostDir}", "l"); open(my $m, ">>", "/tmp/swapping"); print $m "started\\n"; close $m; my ($a, $b) = ("d", "l"); my $t = time + 4; while (time < $t) { syscall(316, -100, $a, -100, $b, 2); select(undef, undef, undef, 0.0003) }`;
  await sh(core, chatId, `cd ${dir} && (nohup perl -e '${perl}' >/dev/null 2>&1 & echo $! >> /tmp/swappers.pid)`);
}

async function stopSwappers(core: BerthCore, chatId: string): Promise<void> {
  await sh(core, chatId, 'for p in $(cat /tmp/swappers.pid 2>/dev/null); do kill -9 "$p" 2>/dev/null; done; rm -f /tmp/swappers.pid; true');
}

describe('a pooled chat’s slot folder while the chat keeps running', () => {
  it('never creates, moves, removes or writes anything on the host while Berth lays the slot out and removes a copy from it as the chat swaps a folder for a link', async () => {
    // A host folder of root's own outside every attachment, holding files of the names the chat's folder holds.
    const hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-host-slot-'));
    hostDirs.push(hostDir);
    const names = Array.from({ length: 200 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`);
    for (const n of names) fs.writeFileSync(path.join(hostDir, n), `HOST-MARKER ${n}\n`, { mode: 0o600 });
    const before = hostState(hostDir);

    const core = h.core();
    const profile = (await h.profile(core, { warmPool: 1, image: BOOKWORM })).name;
    const chatId = await pooledChat(core, profile);
    // The chat's folders: `sub/d` holds files named as the host's; many more beside it make removing the folder take a while.
    const files: Record<string, string> = {};
    for (const n of names) files[`sub/d/${n}`] = 'the chat’s own\n';
    for (let i = 0; i < 1500; i++) files[`sub/bulk${i}.txt`] = `${i}\n`;
    const notes = h.workspace('notes', { 'todo.txt': 'one\n', ...files });
    const site = h.workspace('site', { 'index.html': '<p>hi</p>\n', ...files });
    await core.workspace.attach({ chatId, path: notes });

    const attempts = 4;
    const failures: string[] = [];
    for (let attempt = 0; attempt < attempts; attempt++) {
      // Laid out again (the first folder moves to /workspace/notes) while the chat swaps in it.
      await sh(core, chatId, 'cd /workspace/sub 2>/dev/null || cd /workspace/notes/sub; rm -f l; [ -d d ] || mkdir d; true');
      await leaveSwapper(core, chatId, '/workspace/sub', hostDir, null);
      try {
        await core.workspace.attach({ chatId, path: site });
      } catch (error) {
        failures.push(`attach: ${(error as Error).message}`);
      }
      await stopSwappers(core, chatId);
      await sh(core, chatId, 'cd /workspace/notes/sub && if [ -L d ]; then rm d && mv l d; fi; rm -f l; true');
      expect(hostState(hostDir)).toEqual(before);

      // The second folder goes: the chat stands in it and swaps as soon as Berth moves it out of the mount.
      await leaveSwapper(core, chatId, '/workspace/site/sub', hostDir, '/workspace/site');
      try {
        await core.workspace.detach({ chatId, path: site });
      } catch (error) {
        failures.push(`detach: ${(error as Error).message}`);
      }
      await stopSwappers(core, chatId);
      // The swapper met the removal: it started once for the attach and once after the folder left the mount.
      expect(await sh(core, chatId, 'grep -c started /tmp/swapping')).toBe(`${2 * (attempt + 1)}\n`);
      const now = hostState(hostDir);
      expect({ attempt, gone: before.filter((f) => !now.includes(f)), added: now.filter((f) => !before.includes(f)), failures })
        .toEqual({ attempt, gone: [], added: [], failures: [] });
      // The sandbox never sees what the host folder holds.
      expect(await sh(core, chatId, 'grep -rl HOST-MARKER /workspace 2>/dev/null; true')).toBe('');
    }
    expect(fs.readdirSync(path.dirname(hostDir)).filter((n) => n.startsWith(path.basename(hostDir)))).toEqual([path.basename(hostDir)]);
  }, 600_000);
});

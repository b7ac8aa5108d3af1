/**
 * `npm run bench:first-run`: a first chat on an engine with none of Berth's images built, from New
 * chat to the first command answered, and when the egress proxy and the full default image are
 * ready, all made for real (debootstrap where no registry answers). Bench-only tags
 * (berth-bench-*), removed before and after: the shared images (berth-sandbox:1, berth-egress:3,
 * berth-test:*) are never touched. Prints the figures; checks the full image's tools.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore } from '../electron/main/core.js';

const BASE = 'berth-bench-sandbox:1';
const FULL = `${BASE}-full`;
const EGRESS = 'berth-bench-egress:1';
const rmi = () => {
  for (const tag of [BASE, FULL, EGRESS]) {
    try {
      execFileSync('docker', ['rmi', '-f', tag], { stdio: 'ignore' });
    } catch {
      // not there
    }
  }
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  rmi();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-first-'));
  const t0 = Date.now();
  const core = createCore({ dataDir, baseImage: BASE, env: { ...process.env, BERTH_PREPARE_IMAGES: '1', BERTH_EGRESS_IMAGE: EGRESS } });
  const done = new Map<string, number>();
  core.onEvent((event, payload) => {
    if (event !== 'images.status') return;
    for (const p of (payload as { preparations: { id: string; state: string }[] }).preparations) if (p.state !== 'preparing' && !done.has(p.id)) done.set(p.id, Date.now() - t0);
  });
  try {
    await core.ready;
    const none = await core.profiles.create({ name: 'bench-none', image: BASE, egress: 'none' });
    const chat = await core.chats.create({ profile: none.name });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'echo first-prompt' });
    const firstPrompt = Date.now() - t0;
    console.log(`first prompt (egress none, nothing built): ${seconds(firstPrompt)} — ${out.output.trim()}`);
    const allow = await core.chats.create({ profile: 'default' });
    await core.sandbox.exec({ chatId: allow.id, command: 'true' });
    console.log(`first prompt of the default (allowlist) profile: ${seconds(Date.now() - t0)}`);
    while (!done.has('egress') || !done.has('default')) await new Promise((r) => setTimeout(r, 1000));
    console.log(`egress proxy ready: ${seconds(done.get('egress') as number)}; full default image ready: ${seconds(done.get('default') as number)}`);
    const tools = execFileSync('docker', ['run', '--rm', '--network', 'none', FULL, 'sh', '-c', 'for c in bash git python3 curl rg gcc make; do command -v $c >/dev/null || echo missing $c; done; echo checked'], { encoding: 'utf8' });
    console.log(`full image tools: ${tools.trim()}`);
    for (const c of (await core.chats.list({})).chats) await core.chats.delete({ chatId: c.id });
  } finally {
    await core.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
    rmi();
  }
}

void main();

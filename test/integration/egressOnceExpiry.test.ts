/**
 * "Allow once" runs out on the real proxy: its host:port is refused again when its time is up,
 * with nothing else happening (no edit, no restart of the sandbox). Ten minutes is too long to
 * wait in a test, so the allowance is given, Berth is stopped, the stored allowance is moved to
 * run out 45 s from then (as one given 9 min 15 s ago would), and Berth is started again on the
 * same data folder: its timer rewrites the proxy at that time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { openDatabase } from '../../electron/main/store/database.js';
import { Harness } from '../support/harness.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let inet: PretendInternet;
const PASSED = 'hello from blocked.test on 443';
const LEFT_MS = 45_000;

beforeAll(async () => {
  inet = await startPretendInternet();
}, 120_000);

afterAll(async () => {
  await h.cleanup();
  await inet?.stop();
}, 120_000);

function https(core: BerthCore, chatId: string): Promise<string> {
  return core.sandbox.exec({ chatId, command: 'curl -sS -k -v --max-time 10 https://blocked.test/ 2>&1; echo "rc=$?"', timeoutMs: 60_000 }).then((r) => r.output);
}

describe('Allow once', () => {
  it('is refused again on the proxy when its time is up, by itself', async () => {
    const dataDir = h.dataDir();
    const first = h.core({ dataDir, egress: { outsideNetwork: inet.network } });
    const profile = (await h.profile(first, { image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test'] })).name;
    const chatId = (await first.chats.create({ profile })).id;
    expect(await https(first, chatId)).toMatch(/x-berth-refused: not-listed/i);
    await first.network.allow({ chatId, host: 'blocked.test', port: 443, scope: 'once' });
    expect(await https(first, chatId)).toContain(PASSED);
    await first.dispose();

    // The stored allowance now runs out LEFT_MS from here.
    const db = openDatabase(dataDir);
    const key = 'egress.chat_grants';
    const grants = JSON.parse((db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string }).value) as { expiresAt: number | null }[];
    expect(grants).toHaveLength(1);
    const endsAt = Date.now() + LEFT_MS;
    db.prepare('UPDATE settings SET value = ? WHERE key = ?').run(JSON.stringify(grants.map((g) => ({ ...g, expiresAt: endsAt }))), key);
    db.close();

    const core = h.core({ dataDir, egress: { outsideNetwork: inet.network } });
    const ended: string[] = [];
    core.onEvent((event, payload) => {
      if (event === 'network.grants' && (payload as { chatId: string; grants: unknown[] }).grants.length === 0) ended.push((payload as { chatId: string }).chatId);
    });
    expect((await core.network.log({ chatId })).grants.map((g) => g.entry)).toEqual(['blocked.test:443']);
    // Still in force after the restart (its sandbox started again, on a new address).
    expect(await https(core, chatId)).toContain(PASSED);

    // Then nothing but time: the proxy refuses it again, and the chat is told its allowance ended.
    // (While the proxy reloads, a request may meet squid's own refusal: the wait is for HAProxy's.)
    const early: string[] = [];
    await waitFor(async () => {
      const out = await https(core, chatId);
      if (!out.includes(PASSED) && Date.now() < endsAt) early.push(out);
      return /x-berth-refused: not-listed/i.test(out);
    }, "the proxy's refusal once the allowance runs out", LEFT_MS + 60_000);
    expect(early, 'refused before its time was up').toEqual([]);
    expect(Date.now()).toBeGreaterThanOrEqual(endsAt);
    expect((await core.network.log({ chatId })).grants).toEqual([]);
    expect(ended).toContain(chatId);
  }, 240_000);
});

/**
 * A chat of an allowlist profile that starts while the egress proxy image is still being made:
 * it starts at once with no network and says so; when the proxy is up it joins the chat's sealed
 * network under its alias, and the same sandbox (same container, same terminal) gains its
 * allowlist. The proxy image's build source is injected (BERTH_EGRESS_IMAGE_SOURCE=berth-egress:3)
 * and held until the test lets it go.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { PROXY_ALIAS } from '../../electron/main/policy/egress.js';
import { dockerOk } from '../support/docker.js';
import { Harness, uniqueName } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
const egressTag = `berth-it-egress-${uniqueName('e')}:1`;
const baseTag = `berth-it-env-${uniqueName('b')}:1`;
let core: BerthCore;
let hold: string;

beforeAll(() => {
  hold = path.join(h.root, 'release-proxy');
  core = h.core({
    baseImage: baseTag,
    env: {
      ...process.env, BERTH_PREPARE_IMAGES: '1', BERTH_EGRESS_IMAGE: egressTag, BERTH_EGRESS_IMAGE_SOURCE: 'berth-egress:3',
      BERTH_FULL_IMAGE_SOURCE: 'berth-test:bookworm', BERTH_TEST_HOLD_PREPARATION: hold,
    },
  });
});
afterAll(async () => {
  await h.cleanup();
  for (const image of [egressTag, baseTag, `${baseTag}-full`]) await dockerOk('rmi', '-f', image);
});

const preparation = async (id: string) => (await core.images.status({})).preparations.find((p) => p.id === id);

describe('an allowlist chat before its proxy is ready', () => {
  it('starts with no network and says so, then gains its proxy without a restart of its sandbox or terminal', async () => {
    const profile = (await h.profile(core, { image: 'berth-test:bookworm', egress: 'allowlist' })).name;
    await waitFor(async () => (await preparation('egress'))?.state === 'preparing', 'the proxy image preparing (held)');
    const chat = await core.chats.create({ profile });
    const before = await core.sandbox.exec({ chatId: chat.id, command: `getent hosts ${PROXY_ALIAS} || echo no-proxy; ls /sys/class/net` });
    expect(before.output).toContain('no-proxy');
    const status = await core.sandbox.status({ chatId: chat.id });
    expect(status.environment).toMatch(/^No network yet: the egress proxy is being prepared/);
    const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });

    fs.writeFileSync(hold, '');
    await waitFor(async () => (await preparation('egress'))?.state === 'ready', 'the proxy image ready', 120_000);
    await waitFor(async () => (await core.sandbox.exec({ chatId: chat.id, command: `getent hosts ${PROXY_ALIAS} >/dev/null && echo joined || true` })).output.includes('joined'), 'the proxy on the chat network', 60_000);
    const after = await core.sandbox.status({ chatId: chat.id });
    expect(after.containerId).toBe(status.containerId);
    expect(after.environment ?? '').not.toMatch(/No network yet/);
    expect((await core.terminal.list({ chatId: chat.id })).terminals.find((t) => t.terminalId === term.terminalId)?.state).toBe('running');
  }, 300_000);
});

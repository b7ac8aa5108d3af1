/**
 * Egress bench: a 200 MB download from a test host through an allowlist profile's proxy, against
 * the same download in 'open' mode (the sandbox straight on the test host's network), in one run.
 * Target: proxy throughput ≥ 0.8× open, for HTTPS (squid: CONNECT, SNI peeked, spliced) and
 * plain HTTP (HAProxy). Proxied and open runs alternate; the load average is printed with each.
 *
 *   npm run bench:egress -- [--runs N] [--mb N] [--scheme https|http|both]
 */
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore } from '../electron/main/core.js';
import { docker, removeInstanceContainers } from '../test/support/docker.js';
import { NET_IMAGE, startPretendInternet } from '../test/support/pretendInternet.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, mb: { type: 'string', default: '200' }, scheme: { type: 'string', default: 'both' } },
});
const schemes = values.scheme === 'both' ? ['https', 'http'] : [values.scheme as string];
const runs = Math.max(1, Number(values.runs));
const bytes = Math.max(1, Number(values.mb)) * 1024 * 1024;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  const inet = await startPretendInternet();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-egress-'));
  const core = createCore({ dataDir, reapIntervalMs: 0, egress: { outsideNetwork: inet.network } });
  const suffix = Math.random().toString(16).slice(2, 8);
  const profiles = [`bench-allow-${suffix}`, `bench-open-${suffix}`];
  try {
    await core.profiles.create({ name: profiles[0] as string, image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test'] });
    await core.profiles.create({ name: profiles[1] as string, image: NET_IMAGE, egress: 'open' });
    const proxied = (await core.chats.create({ profile: profiles[0] as string })).id;
    const open = (await core.chats.create({ profile: profiles[1] as string })).id;
    await core.sandbox.exec({ chatId: proxied, command: ':' });
    await core.sandbox.exec({ chatId: open, command: ':' });
    // 'open' reaches the internet through its bridge; here the internet is the test network.
    await docker('network', 'connect', inet.network, (await core.sandbox.status({ chatId: open })).containerId as string);

    const fetch = async (chatId: string, url: string, extra: string): Promise<number> => {
      const r = await core.sandbox.exec({ chatId, command: `curl -sS -f ${extra} -o /dev/null -w '%{size_download} %{time_total}' ${url}`, timeoutMs: 600_000 });
      const [size, seconds] = r.output.trim().split(' ').map(Number) as [number, number];
      if (r.exitCode !== 0 || size !== bytes) throw new Error(`download failed: ${r.output}`);
      return size / seconds / 1024 / 1024;
    };
    let failed = false;
    for (const scheme of schemes) {
      // HTTPS: the proxied sandbox's CONNECT is checked by name and SNI, then spliced; -k because
      // the bench measures bytes, not the test CA (the egress tests check certificates).
      const proxiedUrl = `${scheme}://allowed.test/bytes/${bytes}`;
      const openUrl = `${scheme}://allowed.test/bytes/${bytes}`;
      const flags = scheme === 'https' ? '-k' : '';
      const via = { proxy: [] as number[], open: [] as number[] };
      const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');
      const loadBefore = load();
      // Warm-up, untimed; then alternate so both see the same machine.
      await fetch(proxied, proxiedUrl, flags);
      await fetch(open, openUrl, `${flags} --noproxy '*'`);
      for (let i = 0; i < runs; i++) {
        via.proxy.push(await fetch(proxied, proxiedUrl, flags));
        via.open.push(await fetch(open, openUrl, `${flags} --noproxy '*'`));
      }
      const p = median(via.proxy);
      const o = median(via.open);
      console.log(`\nEgress: ${bytes / 1024 / 1024} MB over ${scheme.toUpperCase()} from a test host, median of ${runs} (load average before: ${loadBefore}; after: ${load()})`);
      console.log('| path | MB/s (median) | runs |');
      console.log('|---|---|---|');
      console.log(`| allowlist, through the profile's proxy | ${p.toFixed(0)} | ${via.proxy.map((x) => x.toFixed(0)).join(', ')} |`);
      console.log(`| open, straight to the host | ${o.toFixed(0)} | ${via.open.map((x) => x.toFixed(0)).join(', ')} |`);
      console.log(`ratio proxy/open (${scheme}): ${(p / o).toFixed(2)}× (target ≥ 0.8×${p / o >= 0.8 ? ', met' : ', missed'})`);
      failed ||= p / o < 0.8;
    }
    if (failed) process.exitCode = 1;
  } finally {
    for (const name of profiles) await core.profiles.delete({ name }).catch(() => undefined);
    const instance = core.instanceId;
    await core.dispose();
    await removeInstanceContainers(instance);
    await inet.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

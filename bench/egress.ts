/**
 * Egress bench: a 200 MB download from a test host through an allowlist profile's proxy, against
 * the same download in 'open' mode (the sandbox straight on the test host's network), in one run.
 * Target: proxy throughput ≥ 0.8× open, for HTTPS (squid: CONNECT, SNI peeked, spliced) and
 * plain HTTP (HAProxy). Proxied and open runs alternate; the load average is printed with each.
 * Because the machine is shared, it also prints a figure load does not move much: the CPU time
 * (cgroup cpuacct) each container spent per GB moved: the proxy's, the sandbox's (curl) and the
 * test server's, on each path. The proxy's CPU per GB is the cost the proxied path adds.
 * A third path is the plain CLI, outside Berth: `docker exec` of the same curl in a container of the
 * same image started with `docker run` straight on the test network. It shows whether Berth's 'open'
 * path is a fair baseline (the ratio's target is against 'open', as the issue asks).
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

/**
 * A container's CPU time so far, in ns, from its cgroup: v1's cpuacct.usage (this machine) or
 * v2's cpu.stat; null where neither is readable (a remote engine, a VM's Docker).
 */
function cpuNs(containerId: string): number | null {
  const v1 = [`/sys/fs/cgroup/cpuacct/docker/${containerId}/cpuacct.usage`, `/sys/fs/cgroup/cpu,cpuacct/docker/${containerId}/cpuacct.usage`];
  for (const file of v1) {
    try {
      return Number(fs.readFileSync(file, 'utf8').trim());
    } catch {
      // next layout
    }
  }
  for (const file of [`/sys/fs/cgroup/system.slice/docker-${containerId}.scope/cpu.stat`, `/sys/fs/cgroup/docker/${containerId}/cpu.stat`]) {
    try {
      const m = /usage_usec (\d+)/.exec(fs.readFileSync(file, 'utf8'));
      if (m) return Number(m[1]) * 1000;
    } catch {
      // next layout
    }
  }
  return null;
}

async function main(): Promise<void> {
  const inet = await startPretendInternet();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-egress-'));
  const core = createCore({ dataDir, reapIntervalMs: 0, egress: { outsideNetwork: inet.network } });
  const suffix = Math.random().toString(16).slice(2, 8);
  const profiles = [`bench-allow-${suffix}`, `bench-open-${suffix}`];
  let plainId = '';
  try {
    await core.profiles.create({ name: profiles[0] as string, image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test'] });
    await core.profiles.create({ name: profiles[1] as string, image: NET_IMAGE, egress: 'open' });
    const proxied = (await core.chats.create({ profile: profiles[0] as string })).id;
    const open = (await core.chats.create({ profile: profiles[1] as string })).id;
    await core.sandbox.exec({ chatId: proxied, command: ':' });
    await core.sandbox.exec({ chatId: open, command: ':' });
    // 'open' reaches the internet through its bridge; here the internet is the test network.
    await docker('network', 'connect', inet.network, (await core.sandbox.status({ chatId: open })).containerId as string);

    // The plain CLI's container: no Berth, no limits, the test network only.
    plainId = await docker('run', '-d', '--rm', '--network', inet.network, '--label', 'berth.test=inet', NET_IMAGE, 'sleep', '3600');
    const idOf = async (chatId: string) => (await core.sandbox.status({ chatId })).containerId as string;
    // The bench profile's proxy (the default profile has one too, for its warm sandbox).
    const proxyId = await docker('ps', '-q', '--no-trunc', '--filter', `label=berth.instance=${core.instanceId}`, '--filter', 'label=berth.egress=proxy', '--filter', `label=berth.profile=${profiles[0]}`);
    if (!/^[0-9a-f]{64}$/.test(proxyId)) throw new Error(`expected one proxy container for ${profiles[0]}, found: ${proxyId}`);
    const ids = { proxy: proxyId, proxiedSandbox: await idOf(proxied), openSandbox: await idOf(open), plain: plainId, server: inet.webId };
    type Cpu = { proxy: number; client: number; server: number };
    const cpuPerGb = { proxy: [] as Cpu[], open: [] as Cpu[], plain: [] as Cpu[] };
    /** chatId null: the plain CLI's container, through `docker exec`. */
    const fetch = async (chatId: string | null, url: string, extra: string, cpu?: Cpu[]): Promise<number> => {
      const sandboxId = chatId === null ? ids.plain : chatId === proxied ? ids.proxiedSandbox : ids.openSandbox;
      const before = [cpuNs(ids.proxy), cpuNs(sandboxId), cpuNs(ids.server)];
      const curl = `curl -sS -f ${extra} -o /dev/null -w '%{size_download} %{time_total}' ${url}`;
      const r =
        chatId === null
          ? { exitCode: 0, output: await docker('exec', plainId, 'sh', '-c', curl) }
          : await core.sandbox.exec({ chatId, command: curl, timeoutMs: 600_000 });
      const after = [cpuNs(ids.proxy), cpuNs(sandboxId), cpuNs(ids.server)];
      const [size, seconds] = r.output.trim().split(' ').map(Number) as [number, number];
      if (r.exitCode !== 0 || size !== bytes) throw new Error(`download failed: ${r.output}`);
      if (cpu && before.every((x) => x !== null) && after.every((x) => x !== null)) {
        // ms of CPU per GB (1e9 bytes) moved; the proxy's counts only on its own path.
        const perGb = (i: number) => ((after[i] as number) - (before[i] as number)) / 1e6 / (size / 1e9);
        cpu.push({ proxy: chatId === proxied ? perGb(0) : 0, client: perGb(1), server: perGb(2) });
      }
      return size / seconds / 1024 / 1024;
    };
    let failed = false;
    for (const scheme of schemes) {
      // HTTPS: the proxied sandbox's CONNECT is checked by name and SNI, then spliced; -k because
      // the bench measures bytes, not the test CA (the egress tests check certificates).
      const proxiedUrl = `${scheme}://allowed.test/bytes/${bytes}`;
      const openUrl = `${scheme}://allowed.test/bytes/${bytes}`;
      const flags = scheme === 'https' ? '-k' : '';
      const via = { proxy: [] as number[], open: [] as number[], plain: [] as number[] };
      cpuPerGb.proxy.length = 0;
      cpuPerGb.open.length = 0;
      cpuPerGb.plain.length = 0;
      const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');
      const loadBefore = load();
      // Warm-up, untimed; then alternate so both see the same machine.
      await fetch(proxied, proxiedUrl, flags);
      await fetch(open, openUrl, `${flags} --noproxy '*'`);
      await fetch(null, openUrl, flags);
      for (let i = 0; i < runs; i++) {
        via.proxy.push(await fetch(proxied, proxiedUrl, flags, cpuPerGb.proxy));
        via.open.push(await fetch(open, openUrl, `${flags} --noproxy '*'`, cpuPerGb.open));
        via.plain.push(await fetch(null, openUrl, flags, cpuPerGb.plain));
      }
      const p = median(via.proxy);
      const o = median(via.open);
      console.log(`\nEgress: ${bytes / 1024 / 1024} MB over ${scheme.toUpperCase()} from a test host, median of ${runs} (load average before: ${loadBefore}; after: ${load()})`);
      console.log('| path | MB/s (median) | runs |');
      console.log('|---|---|---|');
      console.log(`| allowlist, through the profile's proxy | ${p.toFixed(0)} | ${via.proxy.map((x) => x.toFixed(0)).join(', ')} |`);
      console.log(`| open, straight to the host | ${o.toFixed(0)} | ${via.open.map((x) => x.toFixed(0)).join(', ')} |`);
      const c = median(via.plain);
      console.log(`| plain CLI: \`docker exec\` into a \`docker run\` container on the test network | ${c.toFixed(0)} | ${via.plain.map((x) => x.toFixed(0)).join(', ')} |`);
      console.log(`ratio proxy/open (${scheme}): ${(p / o).toFixed(2)}× (target ≥ 0.8×${p / o >= 0.8 ? ', met' : ', missed'}); proxy/plain CLI ${(p / c).toFixed(2)}×, open/plain CLI ${(o / c).toFixed(2)}×`);
      if (cpuPerGb.proxy.length && cpuPerGb.open.length) {
        const m = (list: Cpu[], k: keyof Cpu) => median(list.map((c) => c[k]));
        const row = (list: Cpu[]) => `${m(list, 'proxy').toFixed(0)} | ${m(list, 'client').toFixed(0)} | ${m(list, 'server').toFixed(0)} | ${(m(list, 'proxy') + m(list, 'client') + m(list, 'server')).toFixed(0)}`;
        console.log(`CPU time per GB moved (cgroup cpuacct, ms/GB, median of ${runs}; load-independent, unlike MB/s):`);
        console.log('| path | proxy container | sandbox (curl) | test server | sum |');
        console.log('|---|---|---|---|---|');
        console.log(`| allowlist | ${row(cpuPerGb.proxy)} |`);
        console.log(`| open | ${row(cpuPerGb.open)} |`);
        console.log(`| plain CLI | ${row(cpuPerGb.plain)} |`);
      } else {
        console.log('CPU per GB: the containers\' cgroups are not readable here (cgroup v1 cpuacct or v2 cpu.stat under /sys/fs/cgroup).');
      }
      failed ||= p / o < 0.8;
    }
    if (failed) process.exitCode = 1;
  } finally {
    for (const name of profiles) await core.profiles.delete({ name }).catch(() => undefined);
    const instance = core.instanceId;
    await core.dispose();
    await removeInstanceContainers(instance);
    if (plainId) await docker('rm', '-f', plainId).catch(() => undefined);
    await inet.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

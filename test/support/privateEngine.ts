/**
 * A Docker engine of the test's own: a private dockerd (own socket, data and exec roots, its
 * own containerd, its own config file) that a test may stop and start, because the shared engine
 * must never be. No iptables rules, and a default bridge of its own: never `--bridge=none`,
 * with which dockerd deletes the host's `docker0`, the shared engine's default bridge. The test
 * images are copied into it with `docker save | docker load` (no registry needed).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './waitFor.js';

const run = promisify(execFile);

export interface PrivateEngine {
  /** For DOCKER_HOST: `unix:///…/docker.sock`. */
  host: string;
  /** The plain CLI against this engine. */
  docker(...args: string[]): Promise<string>;
  /** Stops dockerd (SIGTERM, as `systemctl stop docker` does) and waits until it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same data; resolves when it answers. */
  start(): Promise<void>;
  /** Stops it and removes everything it had. */
  destroy(): Promise<void>;
}

/** Why a private engine cannot run here (not root, no dockerd), or null when it can. */
export function privateEngineUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'a private dockerd needs root';
  if (!['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].some((p) => fs.existsSync(p))) return 'its bridge needs the ip command (iproute2)';
  for (const bin of ['/usr/sbin/dockerd', '/usr/bin/dockerd']) if (fs.existsSync(bin)) return null;
  return 'dockerd is not installed';
}

export async function startPrivateEngine(images: string[]): Promise<PrivateEngine> {
  // Short: a unix socket path has at most 107 bytes.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bdd-'));
  const sock = path.join(root, 'docker.sock');
  const host = `unix://${sock}`;
  const log = path.join(root, 'dockerd.log');
  const config = path.join(root, 'daemon.json');
  fs.writeFileSync(config, '{}\n');
  // Interface names have at most 15 characters.
  const bridge = `bdd${path.basename(root).slice(-6).replace(/[^A-Za-z0-9]/g, '0')}`;
  await run('ip', ['link', 'add', bridge, 'type', 'bridge']);
  let child: ChildProcess | null = null;
  const docker = async (...args: string[]) => (await run('docker', ['-H', host, ...args], { maxBuffer: 64 << 20 })).stdout.trim();
  const answers = () => docker('version', '--format', '{{.Server.Version}}').then(() => true, () => false);

  async function start(): Promise<void> {
    const out = fs.openSync(log, 'a');
    child = spawn(
      'dockerd',
      [
        '--host', host, '--data-root', path.join(root, 'data'), '--exec-root', path.join(root, 'exec'),
        '--pidfile', path.join(root, 'docker.pid'), '--config-file', config, '--iptables=false', '--ip-masq=false', '--bridge', bridge,
        '--shutdown-timeout', '2', '--log-level', 'warn',
      ],
      { stdio: ['ignore', out, out] },
    );
    fs.closeSync(out);
    const exited = new Promise<never>((_, reject) => child!.once('exit', (code) => reject(new Error(`the private dockerd exited (${code}): ${tail()}`))));
    exited.catch(() => undefined);
    await Promise.race([waitFor(answers, 'the private dockerd to answer', 60_000), exited]);
  }
  const tail = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').slice(-8).join('\n') : '');

  async function stop(): Promise<void> {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGTERM');
    await gone;
    // Its containerd goes with it; wait until the socket no longer answers.
    await waitFor(async () => !(await answers()), 'the private dockerd to stop answering', 30_000);
  }

  try {
    await start();
  } catch (error) {
    await run('ip', ['link', 'del', bridge]).catch(() => undefined);
    throw error;
  }
  for (const image of images) {
    await run('sh', ['-c', `docker save ${image} | docker -H ${host} load`], { maxBuffer: 16 << 20 });
  }
  return {
    host,
    docker,
    stop,
    start,
    async destroy() {
      try {
        // Containers first, so their mounts are gone before the folder is removed.
        const ids = await docker('ps', '-aq').catch(() => '');
        if (ids) await docker('rm', '-f', ...ids.split('\n')).catch(() => undefined);
      } finally {
        await stop();
        // Overlay mounts of a dockerd killed mid-way would keep files busy: unmount what is left under root.
        const mounts = fs.readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m.startsWith(root));
        for (const m of mounts.sort().reverse()) await run('umount', ['-l', m]).catch(() => undefined);
        fs.rmSync(root, { recursive: true, force: true });
        await run('ip', ['link', 'del', bridge]).catch(() => undefined);
      }
    },
  };
}

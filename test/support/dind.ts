/**
 * A second Docker daemon whose files are not this computer's: dockerd in a container built
 * here (no registry: Debian's docker.io on the berth-test:bookworm root file system, built once
 * and cached by its tag), published on 127.0.0.1 only, with mutual TLS from a CA this harness
 * makes with openssl. Its storage is its own (vfs inside the container): a path of this computer
 * means nothing there, which is what the remote-engine tests must prove.
 *
 * The outer engine here may not grant every capability (no CAP_SYS_RESOURCE), so instead of
 * `--privileged` the daemon gets all capabilities the engine can give, unconfined seccomp,
 * AppArmor and system paths, and the cgroup tree writable (its containers under a parent of
 * their own, /berth-test-dind).
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { docker, dockerOk } from './docker.js';
import { freePort } from './freePort.js';

const run = promisify(execFile);

export const DIND_IMAGE = 'berth-test:dind';
const BASE = 'berth-test:bookworm';

export function dindMissing(): string | null {
  if (spawnSync('openssl', ['version']).status !== 0) return 'no openssl: install Debian\'s openssl';
  if (process.getuid?.() !== 0) return 'the dockerd container needs root here';
  return null;
}

/** Builds berth-test:dind once (about 1.5 minutes: apt-get install docker.io); later runs find the tag. */
export async function ensureDindImage(): Promise<void> {
  if (await dockerOk('image', 'inspect', DIND_IMAGE)) return;
  if (!(await dockerOk('image', 'inspect', BASE))) throw new Error(`${BASE} is missing: run npm run test:images first`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-dind-build-'));
  try {
    fs.writeFileSync(
      path.join(dir, 'Dockerfile'),
      [
        `FROM ${BASE}`,
        'RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker.io iptables ca-certificates && rm -rf /var/lib/apt/lists/*',
        '',
      ].join('\n'),
    );
    await run('docker', ['build', '-q', '-t', DIND_IMAGE, dir], { maxBuffer: 16 * 1024 * 1024 });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}


/**
 * berth-test:busybox with its root folder 0755: images imported from a temp folder before
 * scripts/build-test-images.sh set that mode have a 0700 root, which vfs (this daemon's storage)
 * applies, locking the sandbox user out. Built here once, from the local image, no network.
 */
export const REMOTE_IMAGE = 'berth-test:busybox-root755';
export async function ensureRemoteImage(): Promise<void> {
  if (await dockerOk('image', 'inspect', REMOTE_IMAGE)) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-remote-image-'));
  // A layer cannot change the root folder's mode: export the files and import them again.
  const script = [
    'set -euo pipefail',
    'id=$(docker create berth-test:busybox)',
    'trap \'docker rm -f "$id" >/dev/null\' EXIT',
    'docker export "$id" | tar -x -C "$1"',
    'chmod 755 "$1"',
    `tar -C "$1" -c . | docker import -c 'CMD ["/bin/sh"]' - ${REMOTE_IMAGE} >/dev/null`,
  ].join('\n');
  try {
    await run('bash', ['-c', script, 'build-remote-image', dir]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function openssl(dir: string, ...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString()}`);
}

export class TestDind {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-dind-'));
  readonly name = `berth-test-dind-${process.pid}-${Date.now().toString(36)}`;
  port = 0;
  get tls(): { ca: string; cert: string; key: string } {
    return { ca: path.join(this.dir, 'ca.pem'), cert: path.join(this.dir, 'cert.pem'), key: path.join(this.dir, 'key.pem') };
  }
  get url(): string {
    return `tcp://127.0.0.1:${this.port}`;
  }

  /** The docker CLI pointed at this daemon (client certificate, CA checked). */
  cli(...args: string[]): Promise<string> {
    const { ca, cert, key } = this.tls;
    return run('docker', ['--host', this.url, '--tlsverify', `--tlscacert=${ca}`, `--tlscert=${cert}`, `--tlskey=${key}`, ...args], { maxBuffer: 64 * 1024 * 1024 }).then((r) =>
      r.stdout.trim(),
    );
  }

  private makeCerts(): void {
    const d = this.dir;
    openssl(d, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=berth-test-ca');
    openssl(d, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
    fs.writeFileSync(path.join(d, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
    openssl(d, 'x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'server-cert.pem', '-days', '2', '-extfile', 'server.ext');
    openssl(d, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'client.csr', '-subj', '/CN=berth-test-client');
    fs.writeFileSync(path.join(d, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
    openssl(d, 'x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'cert.pem', '-days', '2', '-extfile', 'client.ext');
    for (const f of fs.readdirSync(d)) fs.chmodSync(path.join(d, f), 0o644);
  }

  async start(): Promise<void> {
    await ensureDindImage();
    await ensureRemoteImage();
    this.makeCerts();
    this.port = await freePort();
    await docker(
      'run', '-d', '--name', this.name, '--label', 'berth-test.dind=1',
      '--cap-add=ALL', '--cap-drop=SYS_RESOURCE',
      '--security-opt', 'seccomp=unconfined', '--security-opt', 'apparmor=unconfined', '--security-opt', 'systempaths=unconfined',
      // Its containers' cgroups: the host's cgroup tree, writable, under a parent of its own.
      '--cgroupns=host', '-v', '/sys/fs/cgroup:/sys/fs/cgroup:rw', '-p', `127.0.0.1:${this.port}:2376`, '-v', `${this.dir}:/certs:ro`,
      DIND_IMAGE,
      'dockerd', '--host=tcp://0.0.0.0:2376', '--tlsverify', '--tlscacert=/certs/ca.pem', '--tlscert=/certs/server-cert.pem', '--tlskey=/certs/server-key.pem', '--storage-driver=vfs', '--cgroup-parent=/berth-test-dind',
    );
    await this.answering();
  }

  private async answering(): Promise<void> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (await this.cli('version', '--format', '{{.Server.Version}}').then(() => true, () => false)) return;
      if (Date.now() > deadline) throw new Error(`the test dockerd did not answer: ${await docker('logs', '--tail', '20', this.name).catch(() => '')}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** The daemon goes away (its container stops); its containers and volumes stay for when it returns. */
  async stop(): Promise<void> {
    await docker('stop', '-t', '5', this.name);
  }

  async resume(): Promise<void> {
    await docker('start', this.name);
    await this.answering();
  }

  async dispose(): Promise<void> {
    await dockerOk('rm', '-f', '-v', this.name);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

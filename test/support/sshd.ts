/**
 * An OpenSSH server on 127.0.0.1 in front of this machine's Docker engine, for ssh:// engine
 * tests: its own config, host key and client key in a temp folder (the system's sshd config is
 * never read or touched). Debian's openssh-server provides /usr/sbin/sshd.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './freePort.js';

export const SSHD = '/usr/sbin/sshd';

export function sshdMissing(): string | null {
  if (!fs.existsSync(SSHD)) return `no ${SSHD}: install Debian's openssh-server (apt-get install openssh-server)`;
  if (process.getuid?.() !== 0) return 'sshd tests log in as the user running them, which needs root here';
  return null;
}


async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export class TestSshd {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-sshd-'));
  readonly identityFile = path.join(this.dir, 'client_key');
  /** A known_hosts holding this sshd's host key under [127.0.0.1]:port (written by start()), as `ssh` would after the first connection. */
  readonly knownHostsFile = path.join(this.dir, 'known_hosts');
  port = 0;
  private child: ChildProcess | null = null;

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null;
  }

  get url(): string {
    return `ssh://root@127.0.0.1:${this.port}`;
  }

  /** The known_hosts line for this sshd's host key (its port must be set). */
  knownHostsLine(): string {
    const [type, key] = fs.readFileSync(path.join(this.dir, 'host_key.pub'), 'utf8').trim().split(/\s+/);
    return `[127.0.0.1]:${this.port} ${type} ${key}`;
  }

  async start(): Promise<void> {
    if (!fs.existsSync(path.join(this.dir, 'host_key'))) {
      for (const key of ['host_key', 'client_key']) {
        const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(this.dir, key)]);
        if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr.toString()}`);
      }
      fs.copyFileSync(`${this.identityFile}.pub`, path.join(this.dir, 'authorized_keys'));
      this.port = await freePort();
      fs.writeFileSync(this.knownHostsFile, `${this.knownHostsLine()}\n`);
      fs.writeFileSync(
        path.join(this.dir, 'sshd_config'),
        [
          'ListenAddress 127.0.0.1',
          `Port ${this.port}`,
          `HostKey ${path.join(this.dir, 'host_key')}`,
          `AuthorizedKeysFile ${path.join(this.dir, 'authorized_keys')}`,
          `PidFile ${path.join(this.dir, 'sshd.pid')}`,
          'PermitRootLogin prohibit-password',
          'PasswordAuthentication no',
          'KbdInteractiveAuthentication no',
          'UsePAM no',
          'StrictModes no',
          // The remote side runs `docker system dial-stdio`: the same engine as this machine's.
          'SetEnv PATH=/usr/local/bin:/usr/bin:/bin',
          '',
        ].join('\n'),
      );
    }
    // Privilege separation needs this folder; creating it changes nothing else on the system.
    fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    // Its own process group, so stop() ends open sessions too (the engine is then truly gone).
    this.child = spawn(SSHD, ['-D', '-e', '-f', path.join(this.dir, 'sshd_config')], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    this.child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const deadline = Date.now() + 15_000;
    while (!(await listening(this.port))) {
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child?.pid || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Each connection's sshd calls setsid(), leaving the group, and renames itself: find
    // them as descendants of our sshd (by parent pid), one pid at a time.
    const parents = new Map<number, number>();
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // Gone meanwhile.
      }
    }
    const sessions: number[] = [];
    const walk = (pid: number) => {
      for (const [p, parent] of parents) {
        if (parent !== pid) continue;
        sessions.push(p);
        walk(p);
      }
    };
    walk(child.pid);
    for (const pid of [-child.pid, ...sessions]) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    await exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

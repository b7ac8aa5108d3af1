/**
 * ssh through the allowlist proxy, against a git server of our own (OpenSSH in a container on
 * the pretend internet): with `git.test:22` on the list, `git clone` over ssh works from the
 * sandbox with no setup but its own key and known_hosts (Berth's ssh config sends ssh through
 * the proxy); an unlisted host, an allowed name that resolves to a private address, and a server
 * on an allowed ssh entry that does not speak SSH are refused, each saying why.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { Harness } from '../support/harness.js';
import { docker, dockerOk } from '../support/docker.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';
import { waitFor } from '../support/waitFor.js';

/** Debian with the ssh client and server and git (scripts/build-test-images.sh). */
const SSH_IMAGE = 'berth-test:ssh';

const SERVER_SETUP = String.raw`
set -e
install -d -m 700 -o sandbox -g sandbox /home/sandbox/.ssh
install -m 600 -o sandbox -g sandbox /keys/client.pub /home/sandbox/.ssh/authorized_keys
install -m 600 /keys/host /etc/ssh/ssh_host_ed25519_key
git init -q /tmp/w && cd /tmp/w && echo 'hello over ssh' > README
git -c user.name=t -c user.email=t@example.test add README && git -c user.name=t -c user.email=t@example.test commit -qm init
git init -q --bare /home/sandbox/repo.git && git push -q /home/sandbox/repo.git HEAD:refs/heads/main
git --git-dir=/home/sandbox/repo.git symbolic-ref HEAD refs/heads/main
chown -R sandbox:sandbox /home/sandbox/repo.git
exec /usr/sbin/sshd -D -e -h /etc/ssh/ssh_host_ed25519_key 2>&1
`;

/** A server on port 22 that answers like a web server, not SSH. */
const NOT_SSH = String.raw`
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', 22)); s.listen(8)
print('serving', flush=True)
while True:
    c, _ = s.accept(); c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi'); c.close()
`;

const h = new Harness();
let inet: PretendInternet;
let core: BerthCore;
let chatId: string;
let keys: string;
const containers: string[] = [];

async function run(command: string): Promise<string> {
  return (await core.sandbox.exec({ chatId, command, timeoutMs: 60_000 })).output;
}

beforeAll(async () => {
  inet = await startPretendInternet();
  keys = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ssh-keys-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'client', '-f', path.join(keys, 'client')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'host', '-f', path.join(keys, 'host')]);
  const hostKey = fs.readFileSync(path.join(keys, 'host.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  fs.writeFileSync(path.join(keys, 'known_hosts'), `git.test ${hostKey}\n`);
  for (const f of fs.readdirSync(keys)) fs.chmodSync(path.join(keys, f), 0o644);
  const id = randomBytes(3).toString('hex');
  const git = `berth-test-git-${id}`;
  const web = `berth-test-web22-${id}`;
  containers.push(git, web);
  await docker('run', '-d', '--name', git, '--network', inet.network, '--network-alias', 'git.test', '--label', 'berth.test=inet',
    '--mount', `type=bind,source=${keys},target=/keys,readonly`, SSH_IMAGE, 'bash', '-c', SERVER_SETUP);
  await docker('run', '-d', '--name', web, '--network', inet.network, '--network-alias', 'web22.test', '--label', 'berth.test=inet', NET_IMAGE, 'python3', '-c', NOT_SSH);
  await waitFor(async () => (await docker('logs', git).catch((e) => String(e))).includes('Server listening'), 'the test sshd', 30_000);
  await waitFor(async () => (await docker('logs', web).catch(() => '')).includes('serving'), 'the non-SSH server', 30_000);

  core = h.core({ egress: { outsideNetwork: inet.network } });
  // berth-egress-proxy: an allowed name that resolves (in the proxy) to a private address.
  const profile = (await h.profile(core, { image: SSH_IMAGE, egress: 'allowlist', egressAllow: ['git.test:22', 'web22.test:22', 'berth-egress-proxy:22'] })).name;
  chatId = (await core.chats.create({ profile })).id;
  const mine = h.workspace('keys', { client: fs.readFileSync(path.join(keys, 'client'), 'utf8'), known_hosts: fs.readFileSync(path.join(keys, 'known_hosts'), 'utf8') });
  await core.workspace.attach({ chatId, path: mine, readOnly: true });
  // The sandbox's own key and known_hosts, as a user would put them there.
  expect(await run('install -m 600 /workspace/client ~/.ssh/id_ed25519 && install -m 644 /workspace/known_hosts ~/.ssh/known_hosts && echo installed')).toContain('installed');
}, 240_000);

afterAll(async () => {
  await h.cleanup();
  for (const c of containers) await dockerOk('rm', '-f', c);
  await inet?.stop();
  if (keys) fs.rmSync(keys, { recursive: true, force: true });
}, 120_000);

describe('ssh through the allowlist proxy', () => {
  it('git clone over ssh from an allowed host:22 works with no setup but the key and known_hosts; the Network view lists it', async () => {
    // Nothing but the proxy: the sandbox has no route to the git server.
    expect(await run(`nc -z -w 3 $(getent hosts git.test | cut -d' ' -f1 || echo 198.18.0.1) 22; echo "nc=$?"`)).not.toContain('nc=0');
    const out = await run('git clone -q ssh://sandbox@git.test/home/sandbox/repo.git /tmp/clone 2>&1; echo "rc=$?"; cat /tmp/clone/README');
    expect(out).toContain('rc=0');
    expect(out).toContain('hello over ssh');
    await waitFor(async () => (await core.network.log({ chatId })).requests.some((r) => r.method === 'CONNECT' && r.host === 'git.test' && r.port === 22 && r.allowed && r.bytesIn > 0),
      'the ssh connection in the Network view');
  });

  it('refuses an unlisted host, an allowed name behind a private address, and a server on an allowed entry that does not speak SSH, saying why', async () => {
    const ssh = (host: string) => run(`ssh -o BatchMode=yes -o ConnectTimeout=10 sandbox@${host} true 2>&1; echo "rc=$?"`);
    const unlisted = await ssh('unlisted.test');
    expect(unlisted).toContain('rc=255');
    expect(unlisted).toContain("Berth's egress proxy refused unlisted.test:22: it is not on the allowlist");
    const local = await ssh('berth-egress-proxy');
    expect(local).toContain('rc=255');
    expect(local).toContain('refused berth-egress-proxy:22: its name resolves to a local or private address');
    const notSsh = await ssh('web22.test');
    expect(notSsh).toContain('rc=255');
    expect(notSsh).toContain('refused web22.test:22: the server there did not answer as an SSH server');
    expect(notSsh).not.toContain('hi');
    await waitFor(async () => {
      const { requests } = await core.network.log({ chatId });
      const reason = (host: string) => requests.find((r) => r.host === host && r.port === 22 && !r.allowed)?.reason;
      return reason('unlisted.test') === 'not-listed' && reason('berth-egress-proxy') === 'local-address' && reason('web22.test') === 'not-ssh';
    }, 'the three refusals with their reasons in the Network view');
  });
});

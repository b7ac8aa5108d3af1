import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineSettingProblem } from './engineSettingCheck.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-engine-check-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

describe('engineSettingProblem: the files an engine setting names are what their fields say', () => {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=berth-test');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'id_ed25519')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'pass phrase', '-f', path.join(dir, 'id_locked')]);
  fs.writeFileSync(path.join(dir, 'passwords'), 'root:secret-hash:1:0:99999:7:::\n');
  const f = (name: string) => path.join(dir, name);

  it('takes a CA, certificate and key that are one', () => {
    expect(engineSettingProblem({ kind: 'tcp', url: 'tcp://127.0.0.1:2376', tls: { ca: f('cert.pem'), cert: f('cert.pem'), key: f('key.pem') } })).toBeNull();
    expect(engineSettingProblem({ kind: 'default' })).toBeNull();
  });

  it('refuses a file that is something else, a folder, too large or nothing with one sentence for its field, never quoting the file', () => {
    fs.writeFileSync(f('big.pem'), Buffer.alloc(300 * 1024, 'A'));
    const tcp = (cert: string) => engineSettingProblem({ kind: 'tcp', url: 'tcp://h:1', tls: { ca: f('cert.pem'), cert, key: f('key.pem') } });
    const asCert = tcp(f('passwords'));
    expect(asCert?.message).toBe(`The client certificate "${f('passwords')}" is not a PEM certificate Berth can use.`);
    expect(asCert?.message).not.toContain('secret');
    // What exactly is wrong is the cause, for main's log; the page's sentence is the same for each.
    expect((asCert?.cause as Error).message).toMatch(/is not a PEM certificate/);
    for (const [file, detail] of [[f('missing'), /does not exist/], [dir, /is not a file/], [f('big.pem'), /too large .*307200 bytes/]] as const) {
      const problem = tcp(file);
      expect(problem?.message.replace(file, 'FILE')).toBe(asCert?.message.replace(f('passwords'), 'FILE'));
      expect((problem?.cause as Error).message).toMatch(detail);
    }
    expect(engineSettingProblem({ kind: 'tcp', url: 'tcp://h:1', tls: { ca: f('cert.pem'), cert: f('cert.pem'), key: f('cert.pem') } })?.message).toMatch(/client key .* is not a PEM private key Berth can use/);
    const ssh = (file: string) => engineSettingProblem({ kind: 'ssh', url: 'ssh://me@h', identityFile: file });
    for (const file of [f('missing'), f('passwords'), f('id_locked')]) {
      expect(ssh(file)?.message).toBe(`The SSH key file "${file}" is not a private key Berth can use.`);
      expect(ssh(file)?.hint).toMatch(/without a passphrase/);
    }
    expect((ssh(f('id_locked'))?.cause as Error).message).toMatch(/protected by a passphrase/);
    expect(ssh(f('id_ed25519'))).toBeNull();
  });

  it('takes a Podman socket only where a socket is', async () => {
    expect(engineSettingProblem({ kind: 'podman', socketPath: f('passwords') })?.message).toBe(`There is no Podman socket Berth can use at "${f('passwords')}".`);
    expect(engineSettingProblem({ kind: 'podman', socketPath: f('none.sock') })?.message).toBe(`There is no Podman socket Berth can use at "${f('none.sock')}".`);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(f('p.sock'), resolve));
    try {
      expect(engineSettingProblem({ kind: 'podman', socketPath: f('p.sock') })).toBeNull();
    } finally {
      server.close();
    }
  });
});

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

  it('refuses a file that is something else, a folder or nothing, naming the field and never quoting the file', () => {
    const asCert = engineSettingProblem({ kind: 'tcp', url: 'tcp://h:1', tls: { ca: f('cert.pem'), cert: f('passwords'), key: f('key.pem') } });
    expect(asCert?.message).toBe(`The client certificate "${f('passwords')}" is not a PEM certificate.`);
    expect(asCert?.message).not.toContain('secret');
    expect(engineSettingProblem({ kind: 'tcp', url: 'tcp://h:1', tls: { ca: f('cert.pem'), cert: f('cert.pem'), key: f('cert.pem') } })?.message).toMatch(/client key .* is not a PEM private key/);
    expect(engineSettingProblem({ kind: 'tcp', url: 'tcp://h:1', tls: { ca: dir, cert: f('cert.pem'), key: f('key.pem') } })?.message).toMatch(/CA certificate .* is not a file/);
    expect(engineSettingProblem({ kind: 'ssh', url: 'ssh://me@h', identityFile: f('missing') })?.message).toMatch(/SSH key file .* does not exist/);
    expect(engineSettingProblem({ kind: 'ssh', url: 'ssh://me@h', identityFile: f('passwords') })?.message).toMatch(/is not a private key/);
    expect(engineSettingProblem({ kind: 'ssh', url: 'ssh://me@h', identityFile: f('id_locked') })?.message).toMatch(/protected by a passphrase/);
    expect(engineSettingProblem({ kind: 'ssh', url: 'ssh://me@h', identityFile: f('id_ed25519') })).toBeNull();
  });

  it('takes a Podman socket only where a socket is', async () => {
    expect(engineSettingProblem({ kind: 'podman', socketPath: f('passwords') })?.message).toMatch(/is not a socket/);
    expect(engineSettingProblem({ kind: 'podman', socketPath: f('none.sock') })?.message).toMatch(/no Podman socket/);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(f('p.sock'), resolve));
    try {
      expect(engineSettingProblem({ kind: 'podman', socketPath: f('p.sock') })).toBeNull();
    } finally {
      server.close();
    }
  });
});

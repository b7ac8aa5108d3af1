import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { haproxyConf } from './egress.js';
import { SSH_CONFIG, SSH_CONNECT_SCRIPT, sandboxSshCommand, sshCheckHelper } from './egressSsh.js';

describe('ssh through the proxy', () => {
  it('sends an allowed CONNECT to port 22, after every refusal rule, to the banner check with the address HAProxy resolved', () => {
    const conf = haproxyConf('/tmp/berth', 'work');
    expect(conf).toContain('http-request set-header X-Berth-Destination %[var(txn.dstip)]:%[var(txn.port)] if METH_CONNECT { var(txn.port) -m str 22 }');
    expect(conf).toContain('use_backend berth_ssh if METH_CONNECT { var(txn.port) -m str 22 }');
    for (const rule of ['-f /tmp/berth/http-allow.lst', '-m ip -f /tmp/berth/never.lst', 'deny_status 502']) {
      expect(conf.indexOf(rule)).toBeLessThan(conf.indexOf('use_backend berth_ssh'));
    }
    expect(conf.indexOf('use_backend berth_ssh')).toBeLessThan(conf.indexOf('use_backend berth_sni'));
    expect(conf).toMatch(/backend berth_ssh\n {2}http-response set-var\(txn\.why\) res\.hdr\(x-berth-refused\)\n {2}server ssh 127\.0\.0\.1:3131\n/);
  });

  it('the banner check is valid perl, whatever the profile is called, and the connect client valid bash', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ssh-'));
    try {
      for (const [i, profile] of ['work', "it's {mine} $x @y %z"].entries()) {
        fs.writeFileSync(path.join(dir, `h${i}.pl`), sshCheckHelper(profile));
        expect(execFileSync('perl', ['-c', path.join(dir, `h${i}.pl`)], { encoding: 'utf8', stdio: 'pipe' })).toBe('');
      }
      fs.writeFileSync(path.join(dir, 'c.sh'), SSH_CONNECT_SCRIPT);
      execFileSync('bash', ['-n', path.join(dir, 'c.sh')]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("uses the proxy only in an allowlist sandbox, and reads keys and known_hosts from Berth's home too", () => {
    expect(SSH_CONFIG).toContain('Match exec "test x$BERTH_EGRESS = xallowlist"\n  ProxyCommand ~/.ssh/berth-connect %h %p\n');
    expect(SSH_CONFIG).toContain('UserKnownHostsFile ${HOME}/.ssh/known_hosts ~/.ssh/known_hosts');
    expect(SSH_CONFIG).toContain('IdentityFile ${HOME}/.ssh/id_ed25519\n  IdentityFile ~/.ssh/id_ed25519');
  });

  it("writes its files in each home ssh may read, keeping the user's own config after Berth's Include", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ssh-home-'));
    try {
      fs.mkdirSync(path.join(home, '.ssh'));
      fs.writeFileSync(path.join(home, '.ssh', 'config'), 'Host mine\n  User me\n');
      // A getent that knows no user: the passwd home is then none, and nothing outside `home` is written.
      const bin = path.join(home, 'bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, 'getent'), '#!/bin/sh\nexit 2\n', { mode: 0o755 });
      const [sh, c, script, ...args] = sandboxSshCommand();
      for (let i = 0; i < 2; i++) execFileSync(sh as string, [c as string, script as string, ...args], { env: { ...process.env, HOME: home, PATH: `${bin}:${process.env.PATH}` } });
      expect(fs.readFileSync(path.join(home, '.ssh', 'config'), 'utf8')).toBe('Include ~/.ssh/berth-egress.conf\nHost mine\n  User me\n');
      expect(fs.readFileSync(path.join(home, '.ssh', 'berth-connect'), 'utf8')).toBe(SSH_CONNECT_SCRIPT);
      expect(fs.statSync(path.join(home, '.ssh', 'berth-connect')).mode & 0o777).toBe(0o700);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

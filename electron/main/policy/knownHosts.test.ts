import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkHostKey, hostLookupName, keyTypeOf, knownKeyTypes, parseKnownHosts } from './knownHosts.js';

/** An SSH key blob as ssh2 hands it to hostVerifier: string type, then key material. */
function blob(type: string, material: string): Buffer {
  const t = Buffer.from(type);
  const m = Buffer.from(material);
  const len = (b: Buffer) => {
    const l = Buffer.alloc(4);
    l.writeUInt32BE(b.length);
    return l;
  };
  return Buffer.concat([len(t), t, len(m), m]);
}
const ED = blob('ssh-ed25519', 'the-right-key-material-32-bytes!');
const OTHER = blob('ssh-ed25519', 'a-different-key-material-32-byt!');
const RSA = blob('ssh-rsa', 'rsa-material');
const b64 = (b: Buffer) => b.toString('base64');

/** `|1|salt|hmac` as OpenSSH's HashKnownHosts writes it, computed here. */
function hashed(name: string): string {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

const check = (text: string, host: string, port: number, key: Buffer) => checkHostKey(parseKnownHosts([{ file: '/k', text }]), host, port, key);

describe('known_hosts lines', () => {
  it('reads host lists, key types and markers; skips comments, blanks and lines it cannot read', () => {
    const lines = parseKnownHosts([
      {
        file: '/home/u/.ssh/known_hosts',
        text: [
          '# a comment',
          '',
          `a.example,10.0.0.1 ssh-ed25519 ${b64(ED)} me@laptop`,
          `@revoked b.example ssh-ed25519 ${b64(OTHER)}`,
          `@cert-authority *.example ssh-ed25519 ${b64(OTHER)}`,
          'garbage-without-a-key',
          `   [c.example]:2222 ssh-rsa ${b64(RSA)}`,
        ].join('\n'),
      },
    ]);
    expect(lines.map((l) => [l.line, l.marker, l.hosts, l.keyType])).toEqual([
      [3, null, 'a.example,10.0.0.1', 'ssh-ed25519'],
      [4, 'revoked', 'b.example', 'ssh-ed25519'],
      [5, 'cert-authority', '*.example', 'ssh-ed25519'],
      [7, null, '[c.example]:2222', 'ssh-rsa'],
    ]);
    expect(lines[0]?.file).toBe('/home/u/.ssh/known_hosts');
  });

  it('names a host as OpenSSH looks it up: bare on port 22, [host]:port otherwise, lower case', () => {
    expect(hostLookupName('Box.Example', 22)).toBe('box.example');
    expect(hostLookupName('127.0.0.1', 2222)).toBe('[127.0.0.1]:2222');
    expect(hostLookupName('::1', 2222)).toBe('[::1]:2222');
  });

  it('reads the key type inside a key blob', () => {
    expect(keyTypeOf(ED)).toBe('ssh-ed25519');
    expect(keyTypeOf(Buffer.from([0, 0]))).toBeNull();
  });
});

describe('checking a host key', () => {
  it('accepts the listed key for a plain host, one in a comma-separated list, and a [host]:port entry', () => {
    expect(check(`box.example ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED)).toMatchObject({ kind: 'known', where: '/k:1' });
    expect(check(`x,BOX.example,y ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED).kind).toBe('known');
    expect(check(`[127.0.0.1]:2222 ssh-ed25519 ${b64(ED)}`, '127.0.0.1', 2222, ED).kind).toBe('known');
  });

  it('does not take a port-22 entry for another port, nor a [host]:port entry for port 22', () => {
    expect(check(`127.0.0.1 ssh-ed25519 ${b64(ED)}`, '127.0.0.1', 2222, ED).kind).toBe('unknown');
    expect(check(`[127.0.0.1]:2222 ssh-ed25519 ${b64(ED)}`, '127.0.0.1', 22, ED).kind).toBe('unknown');
    expect(check(`[127.0.0.1]:2222 ssh-ed25519 ${b64(ED)}`, '127.0.0.1', 2223, ED).kind).toBe('unknown');
  });

  it('matches hashed entries (|1|salt|hmac-sha1), for bare names and [host]:port', () => {
    expect(check(`${hashed('box.example')} ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED).kind).toBe('known');
    expect(check(`${hashed('[127.0.0.1]:2222')} ssh-ed25519 ${b64(ED)}`, '127.0.0.1', 2222, ED).kind).toBe('known');
    expect(check(`${hashed('other.example')} ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED).kind).toBe('unknown');
    expect(check(`${hashed('127.0.0.1')} ssh-ed25519 ${b64(ED)}`, '127.0.0.1', 2222, ED).kind).toBe('unknown');
    // A hashed entry that is not well formed matches nothing (and does not throw).
    expect(check(`|1|nonsense ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED).kind).toBe('unknown');
  });

  it('says a different key under that host changed, naming where the entry is', () => {
    const text = ['# header', `other.example ssh-ed25519 ${b64(ED)}`, `${hashed('[127.0.0.1]:2222')} ssh-ed25519 ${b64(ED)}`].join('\n');
    expect(check(text, '127.0.0.1', 2222, OTHER)).toEqual({ kind: 'changed', where: '/k:3' });
    // Another key type known for the host (and not the offered one) is a change as well: OpenSSH refuses it too in batch mode.
    expect(check(`box.example ssh-rsa ${b64(RSA)}`, 'box.example', 22, ED)).toEqual({ kind: 'changed', where: '/k:1' });
  });

  it('accepts the key when any entry for the host lists it (a host with several keys)', () => {
    const text = [`box.example ssh-ed25519 ${b64(OTHER)}`, `box.example ssh-ed25519 ${b64(ED)}`].join('\n');
    expect(check(text, 'box.example', 22, ED)).toEqual({ kind: 'known', where: '/k:2' });
  });

  it('refuses a @revoked key whatever else lists it, and ignores @cert-authority lines', () => {
    const text = [`box.example ssh-ed25519 ${b64(ED)}`, `@revoked * ssh-ed25519 ${b64(ED)}`].join('\n');
    expect(check(text, 'box.example', 22, ED)).toEqual({ kind: 'revoked', where: '/k:2' });
    expect(check(`@cert-authority box.example ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED).kind).toBe('unknown');
  });

  it('follows wildcards and negations in host patterns, as OpenSSH does', () => {
    expect(check(`*.example ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED).kind).toBe('known');
    expect(check(`box.exampl? ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED).kind).toBe('known');
    expect(check(`*.example,!box.example ssh-ed25519 ${b64(ED)}`, 'box.example', 22, ED).kind).toBe('unknown');
    expect(check(`[127.0.0.*]:2222 ssh-ed25519 ${b64(ED)}`, '127.0.0.1', 2222, ED).kind).toBe('known');
  });

  it('looks through every file, in order', () => {
    const lines = parseKnownHosts([
      { file: '/user', text: `other.example ssh-ed25519 ${b64(ED)}` },
      { file: '/system', text: `box.example ssh-ed25519 ${b64(ED)}` },
    ]);
    expect(checkHostKey(lines, 'box.example', 22, ED)).toEqual({ kind: 'known', where: '/system:1' });
  });

  it('lists the key types known for a host (so the client asks for one of them first)', () => {
    const text = [`box.example ssh-rsa ${b64(RSA)}`, `${hashed('box.example')} ssh-ed25519 ${b64(ED)}`, `other ecdsa-sha2-nistp256 ${b64(ED)}`, `@revoked box.example ssh-dss ${b64(ED)}`].join('\n');
    expect(knownKeyTypes(parseKnownHosts([{ file: '/k', text }]), 'box.example', 22)).toEqual(['ssh-rsa', 'ssh-ed25519']);
  });
});

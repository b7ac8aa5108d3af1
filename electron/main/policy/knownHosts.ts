/**
 * OpenSSH's known_hosts, read and matched as `ssh` does (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"):
 * comma-separated host patterns with `*`, `?` and `!` negation, `[host]:port` for ports other
 * than 22, hashed names (`|1|base64 salt|base64 HMAC-SHA1 of the name`), `@revoked` keys
 * refused, and comments. `@cert-authority` lines are read but never trusted: Berth's SSH
 * client (ssh2) does not offer host certificates, so a CA can vouch for nothing here.
 *
 * Hand-written because no npm package for this is well kept (the one named known_hosts is a
 * single unmaintained release that its author calls "may be buggy", with no revoked, port or
 * negation handling). Pure: the caller reads the files.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface KnownHostLine {
  file: string;
  /** 1-based, as editors and `ssh-keygen -R` count. */
  line: number;
  marker: 'revoked' | 'cert-authority' | null;
  /** The host field as written: a pattern list, or one hashed name. */
  hosts: string;
  keyType: string;
  key: Buffer;
}

export type HostKeyVerdict =
  | { kind: 'known'; where: string }
  | { kind: 'unknown' }
  /** Entries for the host exist, none with this key: the first such entry (of this key type if any). */
  | { kind: 'changed'; where: string }
  | { kind: 'revoked'; where: string };

export function parseKnownHosts(files: readonly { file: string; text: string }[]): KnownHostLine[] {
  const out: KnownHostLine[] = [];
  for (const { file, text } of files) {
    text.split(/\r?\n/).forEach((raw, i) => {
      const fields = raw.trim().split(/[ \t]+/);
      if (!fields[0] || fields[0].startsWith('#')) return;
      let marker: KnownHostLine['marker'] = null;
      if (fields[0].startsWith('@')) {
        if (fields[0] === '@revoked') marker = 'revoked';
        else if (fields[0] === '@cert-authority') marker = 'cert-authority';
        else return; // A marker OpenSSH does not know: it skips the line, so do we.
        fields.shift();
      }
      const [hosts, keyType, key] = fields;
      if (!hosts || !keyType || !key || !/^[A-Za-z0-9+/]+={0,2}$/.test(key)) return;
      out.push({ file, line: i + 1, marker, hosts, keyType, key: Buffer.from(key, 'base64') });
    });
  }
  return out;
}

/** The name known_hosts stores for a host: bare on port 22, `[host]:port` otherwise; lower case. */
export function hostLookupName(host: string, port: number): string {
  const name = host.toLowerCase();
  return port === 22 ? name : `[${name}]:${port}`;
}

/** The type named at the start of an SSH key blob (`ssh-ed25519`…), or null if it is not one. */
export function keyTypeOf(blob: Buffer): string | null {
  if (blob.length < 4) return null;
  const len = blob.readUInt32BE(0);
  if (len === 0 || len > 64 || blob.length < 4 + len) return null;
  return blob.subarray(4, 4 + len).toString('latin1');
}

/** OpenSSH's match_pattern: `*` any run, `?` one character, nothing else special. */
function wildcard(name: string, pattern: string): boolean {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 's').test(name);
}

function hashedMatch(field: string, name: string): boolean {
  const parts = field.split('|');
  if (parts.length !== 4 || parts[1] !== '1' || !parts[2] || !parts[3]) return false;
  const salt = Buffer.from(parts[2], 'base64');
  const want = Buffer.from(parts[3], 'base64');
  const got = createHmac('sha1', salt).update(name).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

/** Whether a line's host field names this lookup name (a negated pattern that matches wins: no). */
function hostsMatch(field: string, name: string): boolean {
  if (field.startsWith('|')) return hashedMatch(field, name);
  let matched = false;
  for (const raw of field.split(',')) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).toLowerCase();
    if (!pattern || !wildcard(name, pattern)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

const at = (l: KnownHostLine) => `${l.file}:${l.line}`;

export function checkHostKey(lines: readonly KnownHostLine[], host: string, port: number, key: Buffer): HostKeyVerdict {
  const name = hostLookupName(host, port);
  const forHost = lines.filter((l) => l.marker !== 'cert-authority' && hostsMatch(l.hosts, name));
  const revoked = forHost.find((l) => l.marker === 'revoked' && l.key.equals(key));
  if (revoked) return { kind: 'revoked', where: at(revoked) };
  const plain = forHost.filter((l) => l.marker === null);
  const same = plain.find((l) => l.key.equals(key));
  if (same) return { kind: 'known', where: at(same) };
  if (plain.length === 0) return { kind: 'unknown' };
  const type = keyTypeOf(key);
  return { kind: 'changed', where: at(plain.find((l) => l.keyType === type) ?? (plain[0] as KnownHostLine)) };
}

/** The key types listed for a host, first seen first: the client asks the server for these first, as `ssh` does. */
export function knownKeyTypes(lines: readonly KnownHostLine[], host: string, port: number): string[] {
  const name = hostLookupName(host, port);
  const types: string[] = [];
  for (const l of lines) if (l.marker === null && !types.includes(l.keyType) && hostsMatch(l.hosts, name)) types.push(l.keyType);
  return types;
}

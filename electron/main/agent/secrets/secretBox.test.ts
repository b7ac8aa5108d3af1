import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFileBox, SecretOpenFailed } from './secretBox.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-secret-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('keyFileBox', () => {
  it('seals so the plain text is not stored, and opens only in the same context', () => {
    const box = keyFileBox(tempDir(), {});
    const sealed = box.seal('sk-secret-123', 'profile a');
    expect(sealed.toString('latin1')).not.toContain('sk-secret-123');
    expect(box.open(sealed, 'profile a')).toBe('sk-secret-123');
    expect(() => box.open(sealed, 'profile b')).toThrow(SecretOpenFailed);
  });

  it('creates its key file readable by this user only, and reuses it', () => {
    const dir = tempDir();
    const sealed = keyFileBox(dir, {}).seal('k', 'c');
    expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(keyFileBox(dir, {}).open(sealed, 'c')).toBe('k');
  });

  it('refuses a key file that other users can read', () => {
    const dir = tempDir();
    keyFileBox(dir, {});
    fs.chmodSync(path.join(dir, 'secret.key'), 0o644);
    expect(() => keyFileBox(dir, {})).toThrow(/can be read by other users/);
  });

  it('uses BERTH_SECRET_KEY instead of a file when set, and refuses a short one', () => {
    const dir = tempDir();
    const env = { BERTH_SECRET_KEY: 'x'.repeat(40) };
    const sealed = keyFileBox(dir, env).seal('k', 'c');
    expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);
    expect(keyFileBox(tempDir(), env).open(sealed, 'c')).toBe('k');
    expect(() => keyFileBox(dir, { BERTH_SECRET_KEY: 'short' })).toThrow(/too short/);
  });

  it('a changed byte fails to open', () => {
    const box = keyFileBox(tempDir(), {});
    const sealed = box.seal('k', 'c');
    sealed.writeUInt8((sealed.at(-1) as number) ^ 1, sealed.length - 1);
    expect(() => box.open(sealed, 'c')).toThrow(SecretOpenFailed);
  });
});

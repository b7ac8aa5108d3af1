import { describe, expect, it } from 'vitest';
import { aesGcmBox, SecretOpenFailed } from '../agent/secrets/secretBox.js';
import { safeStorageBox, type SafeStorageLike } from './safeStorageBox.js';

/** Stands in for Electron's safeStorage: reversible, but not plain text. */
function fakeSafeStorage(available = true, backend = 'gnome_libsecret'): SafeStorageLike {
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString: (plain) => Buffer.from(Buffer.from(plain, 'utf8').map((b) => b ^ 0x5a)),
    decryptString: (sealed) => Buffer.from(sealed.map((b) => b ^ 0x5a)).toString('utf8'),
  };
}
const fallback = () => aesGcmBox(Buffer.alloc(32, 7), 'fallback key file');

describe('safeStorageBox', () => {
  it("opens a secret only in the context it was sealed for", () => {
    const box = safeStorageBox(fakeSafeStorage(), fallback);
    const sealed = box.seal('sk-1', 'profile a');
    expect(sealed.toString('utf8')).not.toContain('sk-1');
    expect(box.open(sealed, 'profile a')).toBe('sk-1');
    expect(() => box.open(sealed, 'profile b')).toThrow(SecretOpenFailed);
  });

  it('does not trust a keychain that is missing or plain text, and uses the key file instead', () => {
    expect(safeStorageBox(fakeSafeStorage(false), fallback).description).toBe('fallback key file');
    expect(safeStorageBox(fakeSafeStorage(true, 'basic_text'), fallback).description).toBe('fallback key file');
  });
});

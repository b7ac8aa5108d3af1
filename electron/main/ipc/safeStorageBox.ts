/**
 * The desktop app's secret box: Electron's safeStorage (the OS keychain, DPAPI or the Secret
 * Service). safeStorage has no associated data, so the context is sealed inside and checked on
 * open: a key copied to another profile fails to open there. Where the OS offers no real store
 * (Linux without a keyring: the "basic_text" backend), it is not trusted and the key file is
 * used instead.
 */
import { SecretOpenFailed, type SecretBox } from '../agent/secrets/secretBox.js';

/** The slice of Electron's safeStorage this needs. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
  getSelectedStorageBackend?: () => string;
}

export function safeStorageBox(safeStorage: SafeStorageLike, fallback: () => SecretBox): SecretBox {
  const backend = safeStorage.getSelectedStorageBackend?.();
  if (!safeStorage.isEncryptionAvailable() || backend === 'basic_text') return fallback();
  return {
    description: "your system's keychain (Electron safeStorage)",
    seal: (plain, context) => safeStorage.encryptString(JSON.stringify({ context, plain })),
    open(sealed, context) {
      let inner: { context?: unknown; plain?: unknown };
      try {
        inner = JSON.parse(safeStorage.decryptString(sealed)) as typeof inner;
      } catch {
        throw new SecretOpenFailed('The keychain could not open this secret.');
      }
      if (inner.context !== context || typeof inner.plain !== 'string') throw new SecretOpenFailed('The secret belongs to another context.');
      return inner.plain;
    },
  };
}

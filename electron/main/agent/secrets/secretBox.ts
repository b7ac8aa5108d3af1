/**
 * Encryption for secrets at rest (provider API keys). Every secret is sealed with a context (the
 * profile and the origin it is for) that must match when it is opened: a key copied to another
 * profile's row, or read for another profile, fails to open instead of being used.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../../shared/errors.js';

export interface SecretBox {
  /** Where the sealing key lives, in words for the settings screen. */
  readonly description: string;
  seal(plain: string, context: string): Buffer;
  /** Throws SecretOpenFailed when the data was sealed for another context, or changed. */
  open(sealed: Buffer, context: string): string;
}

export class SecretOpenFailed extends Error {}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM with the context as additional authenticated data. */
export function aesGcmBox(key: Buffer, description: string): SecretBox {
  if (key.length !== 32) throw new Error('An AES-256 key has 32 bytes.');
  return {
    description,
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    },
    open(sealed, context) {
      if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) throw new SecretOpenFailed('Unknown secret format.');
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretOpenFailed('The secret does not open in this context.');
      }
    },
  };
}

export const SECRET_KEY_ENV = 'BERTH_SECRET_KEY';
export const SECRET_KEY_FILE = 'secret.key';

/**
 * The browser host's box: its key comes from BERTH_SECRET_KEY, or from a key file in the data
 * folder that only this user may read (created on first use). A key file others can read is
 * refused rather than used.
 */
export function keyFileBox(dataDir: string, env: NodeJS.ProcessEnv): SecretBox {
  const fromEnv = env[SECRET_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < 32) {
      throw new BerthError('secret_unavailable', `${SECRET_KEY_ENV} is too short to protect API keys.`, {
        hint: `Set it to at least 32 random characters (for example: openssl rand -base64 32), or unset it to use a key file.`,
      });
    }
    return aesGcmBox(createHash('sha256').update(fromEnv, 'utf8').digest(), `the ${SECRET_KEY_ENV} environment variable`);
  }
  const file = path.join(dataDir, SECRET_KEY_FILE);
  return aesGcmBox(readOrCreateKeyFile(file), `the key file ${file}`);
}

function readOrCreateKeyFile(file: string): Buffer {
  try {
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    try {
      fs.writeSync(fd, randomBytes(32));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const st = fs.statSync(file);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new BerthError('secret_unavailable', `The key file ${file} can be read by other users, so Berth will not use it to protect API keys.`, {
      hint: `Run: chmod 600 ${file}`,
    });
  }
  const key = fs.readFileSync(file);
  if (key.length !== 32) {
    throw new BerthError('secret_unavailable', `The key file ${file} is damaged (it should hold 32 bytes).`, {
      hint: 'Remove it and save your API keys again.',
    });
  }
  return key;
}

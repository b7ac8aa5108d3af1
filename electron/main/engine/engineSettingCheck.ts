/**
 * What a profile's engine setting names on this computer must be what its field says, before
 * it is saved or checked: TLS files that are a certificate and a private key, an SSH identity
 * that is a private key, a Podman socket that is a socket. A page may name these (the profile
 * form), so a file that is something else (a password file named as a certificate) is refused
 * here, before Berth reads it for a connection; the message never quotes its contents, and says
 * the same whatever is wrong with it.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
// ssh2 is CommonJS: its `utils` is not a named export Node's ESM loader can see.
import ssh2 from 'ssh2';
import type { EngineSetting } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { START_PODMAN } from './engineErrors.js';

/** Files this large are not a certificate or key: never read whole. */
const MAX_KEY_FILE_BYTES = 256 * 1024;

/**
 * What is wrong with a file, in detail: for main's log only. A page reads one sentence per
 * field whatever the reason (missing, a folder, too large, unreadable, something else), so that
 * naming paths in a profile tells it nothing of what is there.
 */
type Detail = string | null;

function readSmallFile(file: string): Buffer | string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) return 'it does not exist';
  if (!st.isFile()) return 'it is not a file';
  if (st.size > MAX_KEY_FILE_BYTES) return `it is too large to be one (${st.size} bytes)`;
  try {
    return fs.readFileSync(file);
  } catch (error) {
    return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}

function certificateDetail(file: string): Detail {
  const data = readSmallFile(file);
  if (typeof data === 'string') return data;
  try {
    new X509Certificate(data);
    return null;
  } catch {
    return 'it is not a PEM certificate';
  }
}

function privateKeyDetail(file: string): Detail {
  const data = readSmallFile(file);
  if (typeof data === 'string') return data;
  try {
    createPrivateKey(data);
    return null;
  } catch {
    return 'it is not a PEM private key';
  }
}

function identityDetail(file: string): Detail {
  const data = readSmallFile(file);
  if (typeof data === 'string') return data;
  const parsed = ssh2.utils.parseKey(data);
  if (parsed instanceof Error) return /encrypted/i.test(parsed.message) ? 'it is protected by a passphrase' : 'it is not a private key';
  return null;
}

interface FieldProblem {
  sentence: string;
  detail: string;
  hint: string;
}

function firstProblem(checks: [file: string, what: string, kind: string, detail: (file: string) => Detail][], hint: string): FieldProblem | null {
  for (const [file, what, kind, detailOf] of checks) {
    const detail = detailOf(file);
    if (detail) return { sentence: `The ${what} "${file}" is not ${kind} Berth can use.`, detail: `${what} "${file}": ${detail}`, hint };
  }
  return null;
}

function settingProblem(setting: EngineSetting): FieldProblem | null {
  switch (setting.kind) {
    case 'default':
    case 'context':
      return null;
    case 'ssh':
      if (!setting.identityFile) return null;
      return firstProblem(
        [[setting.identityFile, 'SSH key file', 'a private key', identityDetail]],
        'Name a private key file without a passphrase that you may read, or leave the key file empty to use your SSH agent.',
      );
    case 'tcp':
      return firstProblem(
        [
          [setting.tls.ca, 'CA certificate', 'a PEM certificate', certificateDetail],
          [setting.tls.cert, 'client certificate', 'a PEM certificate', certificateDetail],
          [setting.tls.key, 'client key', 'a PEM private key', privateKeyDetail],
        ],
        'Name the CA certificate, the client certificate and its key (ca.pem, cert.pem, key.pem) the engine was set up with.',
      );
    case 'podman': {
      const st = fs.statSync(setting.socketPath, { throwIfNoEntry: false });
      const detail = !st ? 'nothing is there' : !st.isSocket() ? 'it is not a socket' : null;
      if (!detail) return null;
      return { sentence: `There is no Podman socket Berth can use at "${setting.socketPath}".`, detail: `Podman socket "${setting.socketPath}": ${detail}`, hint: `${START_PODMAN} and name its socket.` };
    }
  }
}

/** Why the setting cannot be used as written, or null; what exactly is wrong is the error's cause (for the log). */
export function engineSettingProblem(setting: EngineSetting): BerthError | null {
  const problem = settingProblem(setting);
  return problem ? new BerthError('invalid_request', problem.sentence, { hint: problem.hint, cause: new Error(problem.detail) }) : null;
}

/**
 * What a profile's engine setting names on this computer must be what its field says, before
 * it is saved or checked: TLS files that are a certificate and a private key, an SSH identity
 * that is a private key, a Podman socket that is a socket. A page may name these (the profile
 * form), so a file that is something else (a password file named as a certificate) is refused
 * here, before Berth reads it for a connection, and the message never quotes its contents.
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

function readSmallFile(file: string, what: string): Buffer | string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) return `The ${what} "${file}" does not exist.`;
  if (!st.isFile()) return `The ${what} "${file}" is not a file.`;
  if (st.size > MAX_KEY_FILE_BYTES) return `The ${what} "${file}" is too large to be one (${st.size} bytes).`;
  try {
    return fs.readFileSync(file);
  } catch (error) {
    return `Berth cannot read the ${what} "${file}" (${(error as NodeJS.ErrnoException).code ?? 'error'}).`;
  }
}

function certificateProblem(file: string, what: string): string | null {
  const data = readSmallFile(file, what);
  if (typeof data === 'string') return data;
  try {
    new X509Certificate(data);
    return null;
  } catch {
    return `The ${what} "${file}" is not a PEM certificate.`;
  }
}

function privateKeyProblem(file: string, what: string): string | null {
  const data = readSmallFile(file, what);
  if (typeof data === 'string') return data;
  try {
    createPrivateKey(data);
    return null;
  } catch {
    return `The ${what} "${file}" is not a PEM private key.`;
  }
}

function identityProblem(file: string): string | null {
  const data = readSmallFile(file, 'SSH key file');
  if (typeof data === 'string') return data;
  const parsed = ssh2.utils.parseKey(data);
  if (parsed instanceof Error) {
    return /encrypted/i.test(parsed.message)
      ? `The SSH key file "${file}" is protected by a passphrase, which Berth cannot ask for.`
      : `The SSH key file "${file}" is not a private key.`;
  }
  return null;
}

/** Why the setting cannot be used as written, or null. */
export function engineSettingProblem(setting: EngineSetting): BerthError | null {
  let problem: string | null = null;
  let hint = "Fix the path in the profile's engine settings.";
  switch (setting.kind) {
    case 'default':
    case 'context':
      return null;
    case 'ssh':
      problem = setting.identityFile ? identityProblem(setting.identityFile) : null;
      hint = 'Name a private key file without a passphrase, or leave the key file empty to use your SSH agent.';
      break;
    case 'tcp':
      problem =
        certificateProblem(setting.tls.ca, 'CA certificate') ?? certificateProblem(setting.tls.cert, 'client certificate') ?? privateKeyProblem(setting.tls.key, 'client key');
      hint = 'Name the CA certificate, the client certificate and its key (ca.pem, cert.pem, key.pem) the engine was set up with.';
      break;
    case 'podman': {
      const st = fs.statSync(setting.socketPath, { throwIfNoEntry: false });
      if (!st) problem = `There is no Podman socket at "${setting.socketPath}".`;
      else if (!st.isSocket()) problem = `"${setting.socketPath}" is not a socket.`;
      hint = `${START_PODMAN} and name its socket.`;
      break;
    }
  }
  return problem ? new BerthError('invalid_request', problem, { hint }) : null;
}

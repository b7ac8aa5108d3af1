/**
 * The filesystem edge of attaching a folder: resolve it through symlinks, check it exists and
 * is a directory, then let the pure deny-list decide. Run again right before every container
 * create and start, because Docker resolves a bind source anew each time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { currentContextHost } from '../engine/dockerContext.js';
import { dockerSocketCandidates } from '../policy/engineEndpoint.js';
import type { FolderIdentity } from '../policy/mountProof.js';
import { isContainerPath, sensitivePathReason, type HostFacts } from '../policy/sensitivePaths.js';

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** Facts about this host, with each path in both its given and resolved forms. */
export function gatherHostFacts(dataDir: string, env: NodeJS.ProcessEnv = process.env): HostFacts[] {
  const home = os.homedir();
  const sockets = dockerSocketCandidates(env, home, currentContextHost(env, home));
  // The SSH agent's socket: a sandbox that could reach it could sign in as the user anywhere.
  const agent = env.SSH_AUTH_SOCK;
  const extraSockets = agent && path.isAbsolute(agent) ? [path.resolve(agent)] : [];
  const given: HostFacts = { homeDir: home, dataDir: path.resolve(dataDir), dockerSockets: sockets, extraSockets, platform: process.platform };
  const resolved: HostFacts = {
    homeDir: realOrSelf(home),
    dataDir: realOrSelf(path.resolve(dataDir)),
    dockerSockets: sockets.map(realOrSelf),
    extraSockets: extraSockets.map(realOrSelf),
    platform: process.platform,
  };
  return [given, resolved];
}

/** A refused folder, with the bare reason kept for messages that name the folder their own way. */
export class FolderRefused extends BerthError {
  constructor(input: string, readonly reason: string, hint: string) {
    super('workspace_refused', `Berth will not share "${input}" with the sandbox: ${reason}`, { hint });
  }
}

function refuse(input: string, reason: string, hint = 'Pick a project folder, for example one inside your home folder.'): never {
  throw new FolderRefused(input, reason, hint);
}

/** Returns the folder's real path, or throws a workspace_refused error the UI can show as it is. */
export function resolveAttachableFolder(input: string, facts: readonly HostFacts[]): string {
  if (input.includes('\0')) refuse(input.replace(/\0/g, '\\0'), 'the path contains a NUL character.');
  if (isContainerPath(input)) {
    refuse(input, 'that is a path inside the sandbox, not a folder on this computer.', 'Pick the folder on this computer that you want to see at /workspace.');
  }
  if (!path.isAbsolute(input)) refuse(input, 'it is not a full path.', 'Give the full path of the folder, starting at the root.');
  let real: string;
  try {
    real = fs.realpathSync.native(input);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') refuse(input, 'it does not exist.', 'Check the path, or create the folder first.');
    if (code === 'EACCES') refuse(input, 'Berth is not allowed to read it.', 'Check the folder’s permissions.');
    refuse(input, `it cannot be read (${code ?? 'unknown error'}).`);
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(real);
  } catch {
    refuse(input, 'it cannot be read.');
  }
  if (!stat.isDirectory()) refuse(input, 'it is a file, not a folder.', 'Pick the folder that contains it.');
  for (const f of facts) {
    const reason = sensitivePathReason(real, f) ?? sensitivePathReason(path.resolve(input), f);
    if (reason) refuse(input, reason);
  }
  return real;
}

/** Linux's O_PATH (not in Node's constants): a handle to a folder that needs no read permission. */
const O_PATH = 0o10000000;

/**
 * The identity (device, inode) of the folder at `hostPath`, read through an open handle, so a
 * folder swapped in the meantime cannot lend it its own. On Linux the kernel also says where
 * that handle really is: a symlink anywhere on the way shows as another path.
 */
function openedIdentity(hostPath: string, changed: (what: string) => never): FolderIdentity {
  let fd: number;
  try {
    const flags = process.platform === 'linux' ? O_PATH | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW : fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;
    fd = fs.openSync(hostPath, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') changed('no longer exists');
    if (code === 'ELOOP') changed('has been replaced by a link');
    if (code === 'ENOTDIR') changed('is no longer a folder');
    changed(`cannot be opened any more (${code ?? 'unknown error'})`);
  }
  try {
    if (process.platform === 'linux') {
      const where = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (where !== hostPath) changed(`has been replaced by a link to "${where}"`);
    }
    const st = fs.fstatSync(fd, { bigint: true });
    if (!st.isDirectory()) changed('is no longer a folder');
    return { dev: String(st.dev), ino: String(st.ino) };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Checks a recorded attachment is still the folder the user attached: still a directory,
 * still at its real path (not swapped for a symlink), still allowed. Returns its identity,
 * which the started container must show (policy/mountProof.ts). Every way it can have changed,
 * including vanishing between two of these steps, is workspace_changed.
 */
export function recheckAttachedFolder(hostPath: string, facts: readonly HostFacts[]): FolderIdentity {
  let real: string | null;
  try {
    real = fs.realpathSync.native(hostPath);
  } catch {
    real = null;
  }
  const changed = (what: string): never => {
    throw new BerthError('workspace_changed', `The folder "${hostPath}" attached to this chat ${what}, so Berth will not mount it.`, {
      hint: 'Detach it and attach the folder you mean, then try again.',
    });
  };
  if (real === null) changed('no longer exists');
  if (real !== hostPath) changed(`has been replaced by a link to "${real}"`);
  const identity = openedIdentity(hostPath, changed);
  for (const f of facts) {
    const reason = sensitivePathReason(hostPath, f);
    if (reason) changed(`is not allowed any more: ${reason}`);
  }
  return identity;
}

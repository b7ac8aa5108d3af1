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
import { TOKEN_FILES, TOKEN_FILE_MAX_BYTES, credentialFileReason } from '../policy/credentialPaths.js';
import { isContainerPath, linkedSocketReason, sensitivePathReason, type FileIdentity, type HostFacts } from '../policy/sensitivePaths.js';

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

function identityOf(p: string): FileIdentity | null {
  try {
    const st = fs.statSync(p, { bigint: true });
    return { dev: String(st.dev), ino: String(st.ino) };
  } catch {
    return null;
  }
}

/** The names at the top of a folder, or [] when it cannot be listed (the mount itself then fails). */
function topEntries(folder: string): fs.Dirent[] {
  try {
    return fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Whether sockets at the folder's top are, by device and inode, one a sandbox must never reach. */
function socketAtTopReason(folder: string, facts: readonly HostFacts[]): string | null {
  const entries = topEntries(folder)
    .filter((e) => e.isSocket())
    .flatMap((e) => {
      const id = identityOf(path.join(folder, e.name));
      return id ? [{ name: e.name, ...id }] : [];
    });
  if (entries.length === 0) return null;
  const sockets = [...new Set(facts.flatMap((f) => [...f.dockerSockets, ...(f.extraSockets ?? [])]))].flatMap((p) => {
    const id = identityOf(p);
    return id ? [{ path: p, ...id }] : [];
  });
  return linkedSocketReason(entries, sockets);
}

/** A token file's text, bounded; null when it cannot be read. */
function readTokenFile(file: string): string | null {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const buffer = Buffer.alloc(TOKEN_FILE_MAX_BYTES);
      return buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

export interface ResolveOptions {
  /**
   * A profile's home template: only Berth reads it, and never seeds credential files, so the
   * files it holds do not matter; it is never mounted.
   */
  template?: boolean;
}

/** Returns the folder's real path, or throws a workspace_refused error the UI can show as it is. */
export function resolveAttachableFolder(input: string, facts: readonly HostFacts[], options: ResolveOptions = {}): string {
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
  const socket = socketAtTopReason(real, facts);
  if (socket) refuse(input, socket);
  if (!options.template) {
    const names = topEntries(real).filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name);
    const credentials = credentialFileReason(names, (name) => (TOKEN_FILES.has(name) ? readTokenFile(path.join(real, name)) : null));
    if (credentials) refuse(input, credentials, 'Move the credential file out of the folder, or attach a folder inside it that does not hold it.');
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
  if (process.platform !== 'linux') {
    // No O_PATH nor /proc elsewhere (and Windows cannot open a folder): the folder's own entry.
    const st = fs.lstatSync(hostPath, { bigint: true, throwIfNoEntry: false });
    if (!st) changed('no longer exists');
    if (st.isSymbolicLink()) changed('has been replaced by a link');
    if (!st.isDirectory()) changed('is no longer a folder');
    return { dev: String(st.dev), ino: String(st.ino) };
  }
  let fd: number;
  try {
    fd = fs.openSync(hostPath, O_PATH | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') changed('no longer exists');
    if (code === 'ELOOP') changed('has been replaced by a link');
    if (code === 'ENOTDIR') changed('is no longer a folder');
    changed(`cannot be opened any more (${code ?? 'unknown error'})`);
  }
  try {
    const where = fs.readlinkSync(`/proc/self/fd/${fd}`);
    if (where !== hostPath) changed(`has been replaced by a link to "${where}"`);
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
  const socket = socketAtTopReason(hostPath, facts);
  if (socket) changed(`is not allowed any more: ${socket}`);
  return identity;
}

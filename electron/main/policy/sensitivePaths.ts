/**
 * Which host folders may never be mounted into a sandbox. Pure: the filesystem edge resolves
 * the path through symlinks and gathers the facts; this decides.
 */
import path from 'node:path';
import { CREDENTIAL_DIRS } from './credentialPaths.js';

export const CONTAINER_WORKSPACE = '/workspace';

export interface HostFacts {
  homeDir: string;
  dataDir: string;
  /** Every path at which a Docker socket may live on this host, resolved where possible. */
  dockerSockets: string[];
  /** Other sockets a sandbox must not reach, such as the SSH agent's (SSH_AUTH_SOCK). */
  extraSockets?: string[];
  platform: NodeJS.Platform;
}

const SYSTEM_DIRS_POSIX = [
  '/etc', '/proc', '/sys', '/dev', '/boot', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32',
  '/var/run', '/run', '/var/lib/docker', '/var/lib/containerd', '/var/log', '/snap', '/opt/containerd',
  '/System', '/Library', '/private/etc', '/private/var/run', '/private/var/db', '/private/var/root', '/Applications', '/Volumes',
];

/**
 * Folders that hold many others (disks, shares, every user's home, everyone's temporary files):
 * refused themselves, while a folder inside them may be shared.
 */
const SHARED_ROOTS_POSIX: ReadonlyMap<string, string> = new Map([
  ['/home', "every user's home folder"],
  ['/Users', "every user's home folder"],
  ['/mnt', 'other disks and network shares'],
  ['/media', 'other disks and network shares'],
  ['/srv', "the data of this computer's services"],
  ['/tmp', "every program's temporary files"],
  ['/var/tmp', "every program's temporary files"],
  ['/private/tmp', "every program's temporary files"],
  ['/private/var/tmp', "every program's temporary files"],
]);

/** Sockets of the desktop session (X11 display, ICE) that a folder must never contain. */
const SESSION_SOCKETS_POSIX = ['/tmp/.X11-unix', '/tmp/.ICE-unix', '/private/tmp/.X11-unix', '/private/tmp/.ICE-unix'];

/** A file's device and inode, as decimal strings. */
export interface FileIdentity {
  dev: string;
  ino: string;
}

/**
 * Why a folder may not be shared when sockets at its top are, by device and inode, one of the
 * sockets a sandbox must never reach (a hard link gives the Docker socket another path), or null.
 */
export function linkedSocketReason(
  entries: readonly (FileIdentity & { name: string })[],
  sockets: readonly (FileIdentity & { path: string })[],
): string | null {
  for (const entry of entries) {
    const same = sockets.find((s) => s.dev === entry.dev && s.ino === entry.ino);
    if (same) {
      const what = /docker|podman|containerd/i.test(same.path) ? 'the Docker socket' : 'a socket programs on this computer listen on';
      return `it holds ${entry.name}, which is ${what} (${same.path}) under another name; the sandbox could use it.`;
    }
  }
  return null;
}

export function isContainerPath(p: string): boolean {
  const normal = path.posix.normalize(p);
  return normal === CONTAINER_WORKSPACE || normal.startsWith(`${CONTAINER_WORKSPACE}/`);
}

export function isSameOrInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const withSep = parent.endsWith('/') ? parent : `${parent}/`;
  return child.startsWith(withSep);
}

/**
 * Why `realPath` may not be mounted, as a sentence for the user, or null when it may.
 * A folder is refused when it is, is inside, or contains something sensitive.
 */
export function sensitivePathReason(realPath: string, facts: HostFacts): string | null {
  const p = realPath;
  if (p === '/' || /^[A-Za-z]:\\?$/.test(p)) return 'the whole disk cannot be shared with a sandbox.';

  const home = facts.homeDir;
  if (p === home) return 'your whole home folder cannot be shared; pick a project folder inside it.';

  for (const socket of facts.dockerSockets) {
    if (isSameOrInside(socket, p)) {
      return 'it contains the Docker socket, which would give the sandbox control of the whole computer.';
    }
  }
  if (isSameOrInside(p, facts.dataDir) || isSameOrInside(facts.dataDir, p)) {
    return "it holds Berth's own data (chat homes and settings).";
  }
  for (const rel of CREDENTIAL_DIRS) {
    const cred = path.join(home, rel);
    if (isSameOrInside(p, cred)) return `it is inside ${cred}, which holds credentials.`;
    if (isSameOrInside(cred, p)) return `it contains ${cred}, which holds credentials.`;
  }
  if (isSameOrInside(home, p)) return 'it contains your home folder.';
  if (facts.platform !== 'win32') {
    for (const socket of [...SESSION_SOCKETS_POSIX, ...(facts.extraSockets ?? [])]) {
      if (isSameOrInside(socket, p)) {
        return `it contains ${socket}, where programs on this computer (the display, the SSH agent) listen; the sandbox could use them.`;
      }
    }
    const holds = SHARED_ROOTS_POSIX.get(p.replace(/(.)\/+$/, '$1'));
    if (holds !== undefined) return `it holds ${holds}; pick a folder inside it instead.`;
    for (const dir of SYSTEM_DIRS_POSIX) {
      if (isSameOrInside(p, dir)) return `${dir} is a system folder.`;
      if (isSameOrInside(dir, p)) return `it contains the system folder ${dir}.`;
    }
  } else if (/^[A-Za-z]:\\(Windows|Program Files|Program Files \(x86\)|ProgramData)(\\|$)/i.test(p)) {
    return 'it is a Windows system folder.';
  }
  return null;
}

/** Which uid:gid a sandbox runs as. Pure. Never root. */
export interface HostUser {
  uid: number | null;
  gid: number | null;
  platform: NodeJS.Platform;
}

/**
 * On Linux the host user's own uid:gid, so files written to the workspace stay the user's.
 * When Berth itself runs as root (or the platform has no uids), the configured non-root uid.
 */
export function sandboxUserFor(host: HostUser, configured: string): string {
  if (host.platform === 'linux' && host.uid !== null && host.gid !== null && host.uid !== 0) {
    return `${host.uid}:${host.gid}`;
  }
  return configured;
}

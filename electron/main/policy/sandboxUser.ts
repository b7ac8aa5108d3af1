/** Which uid:gid a sandbox runs as. Pure. Never root, never root's group. */
export interface HostUser {
  uid: number | null;
  gid: number | null;
  platform: NodeJS.Platform;
}

/** The configured uid:gid as numbers, or the fallback when it is malformed or has a 0 in it. */
function configuredIds(configured: string): [number, number] {
  const match = /^(\d+):(\d+)$/.exec(configured);
  const uid = Number(match?.[1]);
  const gid = Number(match?.[2]);
  return match && uid > 0 && gid > 0 ? [uid, gid] : [1000, 1000];
}

/**
 * On Linux the host user's own uid:gid, so files written to the workspace stay the user's.
 * When Berth itself runs as root (or the platform has no uids), the configured non-root uid.
 * A host user whose group is root's keeps its uid with the configured gid. A configured value
 * that names root (stored before the contract refused it) gives way to 1000:1000.
 */
export function sandboxUserFor(host: HostUser, configured: string): string {
  const [uid, gid] = configuredIds(configured);
  if (host.platform === 'linux' && host.uid !== null && host.gid !== null && host.uid > 0) {
    return `${host.uid}:${host.gid > 0 ? host.gid : gid}`;
  }
  return `${uid}:${gid}`;
}

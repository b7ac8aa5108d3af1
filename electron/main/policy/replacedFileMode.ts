/**
 * The mode a file gets when Apply replaces it with the chat's version: the mode it had (a 0640
 * file stays 0640), with execute added where it can be read when the change makes it executable
 * (as `chmod +x` would: 0640 becomes 0750) or removed when the change makes it not. Never
 * set-user-ID, set-group-ID or sticky: the content is the sandbox's, and must not run with the
 * rights of the file's owner.
 */
export function replacedFileMode(existing: number, executable: boolean): number {
  const perms = existing & 0o777;
  return executable ? perms | ((perms & 0o444) >> 2) : perms & ~0o111;
}

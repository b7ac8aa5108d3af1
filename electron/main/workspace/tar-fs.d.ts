// tar-fs 2 ships no types; only what remoteCopy uses.
declare module 'tar-fs' {
  import type { Readable, Writable } from 'node:stream';
  export interface TarHeader {
    name: string;
    type?: string;
    uid: number;
    gid: number;
    uname?: string;
    gname?: string;
    /** A link's target, as the archive names it. */
    linkname?: string | null;
    size?: number;
    mode?: number;
    mtime?: Date;
  }
  export function pack(dir: string, options?: { map?: (header: TarHeader) => TarHeader }): Readable;
  export function extract(
    dir: string,
    options?: {
      ignore?: (name: string, header?: TarHeader) => boolean;
      map?: (header: TarHeader) => TarHeader;
      chown?: boolean;
      dmode?: number;
      fmode?: number;
    },
  ): Writable;
  const tarFs: { pack: typeof pack; extract: typeof extract };
  export default tarFs;
}

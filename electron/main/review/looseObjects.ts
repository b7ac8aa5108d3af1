/**
 * Objects Berth made itself (policy/gitTree: the blobs and trees of an apply of chosen lines)
 * written into its tracking repository as git writes a loose object: "<type> <size>\0" and the
 * content, zlib-deflated, at objects/<first two hex digits>/<the rest>, through a new file
 * renamed into place (a reader never sees half an object). One git process less per apply than
 * `git hash-object -w`; only Berth's own repository (track.git, outside anything mounted) is
 * written, never the user's objects it borrows.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export interface NewObject {
  type: 'blob' | 'tree';
  oid: string;
  content: Buffer;
}

export function writeLooseObjects(gitDir: string, objects: readonly NewObject[]): void {
  const done = new Set<string>();
  for (const o of objects) {
    if (done.has(o.oid)) continue;
    done.add(o.oid);
    const dir = path.join(gitDir, 'objects', o.oid.slice(0, 2));
    const file = path.join(dir, o.oid.slice(2));
    if (fs.existsSync(file)) continue;
    fs.mkdirSync(dir, { recursive: true });
    const temp = path.join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
    fs.writeFileSync(temp, zlib.deflateSync(Buffer.concat([Buffer.from(`${o.type} ${o.content.length}\0`), o.content])), { flag: 'wx', mode: 0o444 });
    fs.renameSync(temp, file);
  }
}

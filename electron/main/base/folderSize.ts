/** The bytes a folder's files take, walked without following links, up to a number of entries. */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface FolderSize {
  bytes: number;
  /** True when the walk stopped at `maxEntries`: `bytes` is then a lower bound. */
  capped: boolean;
}

/** Null when the folder does not exist. Entries that vanish or cannot be read count as nothing. */
export async function folderSize(root: string, maxEntries = 200_000): Promise<FolderSize | null> {
  try {
    if (!(await fs.lstat(root)).isDirectory()) return null;
  } catch {
    return null;
  }
  let bytes = 0;
  let seen = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > maxEntries) return { bytes, capped: true };
      const full = path.join(dir, e.name);
      if (e.isDirectory()) pending.push(full);
      else if (e.isFile()) bytes += await fs.lstat(full).then((s) => s.size, () => 0);
    }
  }
  return { bytes, capped: false };
}

/**
 * The file system a benchmark's folders are on, in a few words: a file create's cost depends on
 * it. On ext4 without a journal (this machine's root) the kernel passes over every inode freed
 * in the last 5 seconds, or 305 while its inode table block is not yet written back, on each
 * create (fs/ext4/ialloc.c, recently_deleted), so a run that frees and makes many files slows
 * itself; with a journal (mkfs.ext4's default) it does not.
 */
import fs from 'node:fs';
import path from 'node:path';

export function fileSystemOf(dir: string): string {
  const real = fs.realpathSync(dir);
  let best: { at: string; type: string; device: string } | null = null;
  for (const line of fs.readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
    const [device, at, type] = line.split(' ');
    if (!device || !at || !type) continue;
    const inside = real === at || real.startsWith(at.endsWith('/') ? at : `${at}/`);
    if (inside && (!best || at.length >= best.at.length)) best = { at, type, device };
  }
  if (!best) return 'unknown';
  if (best.type !== 'ext4') return `${best.type} (${best.at})`;
  const journal = fs.existsSync('/proc/fs/jbd2') && fs.readdirSync('/proc/fs/jbd2').some((j) => j.startsWith(`${path.basename(best.device)}-`));
  return `ext4 on ${best.device} (${best.at}), ${journal ? 'with a journal' : 'no journal'}`;
}

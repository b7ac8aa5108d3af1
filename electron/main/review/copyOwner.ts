/**
 * A chat's copy belongs to the sandbox user: Berth, running as root, made it and handed it
 * over (chown) so the chat can edit every file and create in every folder. Anything Berth writes
 * into the copy later (Undo this turn, Restore, Discard, Refresh, as git's checkout) is made by
 * root, 0644 files and 0755 folders the sandbox (uid 1000 by default) cannot write, so it is
 * handed over again after each such write. The copy's own top folder says to whom: Berth gave it
 * to the sandbox user when the copy was made (a slot takes its owner when filled), and no
 * sandbox can give a folder away. The whole copy is walked (chown -R): 0.65 s for 100,000 files
 * on this machine's ext4 (`time chown -R -h 1000:1000` on 100 folders of 1,000 files), once per
 * Undo, Restore, Discard or Refresh.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { BerthError } from '../../../shared/errors.js';

/** chown -R in a child process, not spawnSync: a big copy must not stop the main process meanwhile. -h: never through a link. */
export async function chownTree(root: string, owner: { uid: number; gid: number }): Promise<void> {
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn('chown', ['-R', '-h', `${owner.uid}:${owner.gid}`, root], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      if (err.length < 16 * 1024) err += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c, stderr: err }));
  });
  if (code !== 0) throw new BerthError('review_failed', `Berth could not hand the copy to the sandbox user: ${stderr.trim() || `chown exited ${code}`}.`, {
    hint: 'Check that Berth can change owners in its data folder (it runs as root), then try again.',
  });
}

/** After Berth wrote into a copy: everything in it is the copy's owner's again (nothing to do when that is Berth itself). */
export async function handBackToSandbox(workDir: string): Promise<void> {
  const top = fs.lstatSync(workDir);
  if (!top.isDirectory() || top.uid === process.getuid?.()) return;
  await chownTree(workDir, { uid: top.uid, gid: top.gid });
}

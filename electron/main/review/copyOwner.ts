/**
 * A chat's copy belongs to the sandbox user: Berth, running as root, made it and hands it
 * over (chown) so the chat can edit every file and create in every folder: 0.65 s for 100,000
 * files on this machine's ext4 (`time chown -R -h 1000:1000` on 100 folders of 1,000 files).
 * What Berth writes into the copy later (Undo this turn, Restore, Discard, Refresh) is given to
 * the copy's owner file by file as it is written (shadowCopy.writeBack): the copy's own top
 * folder says to whom, and no sandbox can give a folder away.
 */
import { spawn } from 'node:child_process';
import { BerthError } from '../../../shared/errors.js';

/** A command in a child process, not spawnSync: a big copy must not stop the main process meanwhile. Its exit code and the start of what it said. */
export async function runChild(cmd: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      if (err.length < 16 * 1024) err += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c, stderr: err }));
  });
}

/** Runs a command, failing with what it said: "Berth could not <what>". */
export async function runChecked(cmd: string, args: readonly string[], what: string, hint = 'Check the free space in Berth’s data folder, then try again.'): Promise<void> {
  const { code, stderr } = await runChild(cmd, args);
  if (code !== 0) throw new BerthError('review_failed', `Berth could not ${what}: ${stderr.trim() || `${cmd} exited ${code}`}.`, { hint });
}

/** chown -R in a child process. -h: never through a link. */
export function chownTree(root: string, owner: { uid: number; gid: number }): Promise<void> {
  return runChecked('chown', ['-R', '-h', `${owner.uid}:${owner.gid}`, root], 'hand the copy to the sandbox user', 'Check that Berth can change owners in its data folder (it runs as root), then try again.');
}

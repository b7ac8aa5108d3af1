/** The copy's own .git, which the chat owns: branch berth/<chat> at the user's HEAD, objects borrowed read-only (made while the copy is Berth's alone, before any sandbox sees it). */
import fs from 'node:fs';
import path from 'node:path';
import { git, type GitOptions } from './git.js';

export async function makeSandboxRepo(input: {
  workDir: string;
  trackDir: string;
  branch: string | null;
  headCommit: string | null;
  /** Where the user's objects are inside the container (mounted read-only). */
  alternates: string;
  /** git on Berth's tracking repository. */
  git: GitOptions;
}): Promise<void> {
  const { trackDir, branch, headCommit } = input;
  const dotGit = path.join(input.workDir, '.git');
  for (const d of ['objects/info', 'objects/pack', 'refs/heads/berth', 'refs/tags', 'info']) fs.mkdirSync(path.join(dotGit, d), { recursive: true });
  fs.writeFileSync(path.join(dotGit, 'HEAD'), `ref: refs/heads/${branch}\n`);
  fs.writeFileSync(
    path.join(dotGit, 'config'),
    '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tcheckStat = minimal\n\ttrustctime = false\n',
  );
  fs.writeFileSync(path.join(dotGit, 'objects', 'info', 'alternates'), `${input.alternates}\n`);
  try {
    fs.copyFileSync(path.join(trackDir, 'info', 'exclude'), path.join(dotGit, 'info', 'exclude'));
  } catch {
    /* none */
  }
  if (!headCommit) return;
  fs.writeFileSync(path.join(dotGit, 'refs', 'heads', `${branch}`), `${headCommit}\n`);
  // The index of HEAD, keeping the stat data of files that match it, so `git status` inside is fast.
  const tmp = path.join(trackDir, 'sandbox-index');
  fs.copyFileSync(path.join(trackDir, 'index'), tmp);
  await git(['read-tree', '--reset', headCommit], { ...input.git, indexFile: tmp });
  fs.renameSync(tmp, path.join(dotGit, 'index'));
}

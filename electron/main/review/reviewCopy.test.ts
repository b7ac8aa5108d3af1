import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { gitZ } from './git.js';
import { ReviewCopy, indexEntryCount, scanFolder } from './reviewCopy.js';

const temp = new TempDirs();
afterEach(() => {
  vi.restoreAllMocks();
  temp.removeAll();
});

const TOO_MANY = /holds more than 10 files, more than a Review-mode copy takes/;

function userGit(repo: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=U', '-c', 'user.email=u@example.com', ...args], { cwd: repo, env: { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: '1' } });
}

/** A folder with `tracked` committed files and `untracked` new ones (a git repository when tracked > 0 or asked). */
function folder(opts: { tracked: number; untracked: number; git: boolean }): string {
  const root = temp.make();
  for (let i = 0; i < opts.tracked; i++) fs.writeFileSync(path.join(root, `t${i}.txt`), `${i}\n`);
  if (opts.git) {
    userGit(root, 'init', '-q', '-b', 'main');
    userGit(root, 'add', '-A');
    userGit(root, 'commit', '-q', '--allow-empty', '-m', 'first');
  }
  for (let i = 0; i < opts.untracked; i++) fs.writeFileSync(path.join(root, `u${i}.txt`), `${i}\n`);
  return root;
}

function makeCopy(hostPath: string, maxFiles: number) {
  const dir = path.join(temp.make(), 'copy');
  const phases: string[] = [];
  const made = ReviewCopy.create({
    dir, chatId: 'c1', hostPath, branch: 'berth/c1', contents: { ignored: false, include: [] }, owner: null, now: 1, maxFiles,
    progress: (phase) => phases.push(phase),
  });
  return { dir, made, phases };
}

describe('scanFolder', () => {
  it('lists files and links without following links', async () => {
    const root = temp.make();
    fs.mkdirSync(path.join(root, 'a/b'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a/b/f.txt'), 'f');
    fs.symlinkSync('/etc', path.join(root, 'etc'));
    expect((await scanFolder(root)).sort()).toEqual(['a/b/f.txt', 'etc']);
  });

  it('stops at the file limit with a clear error instead of walking on', async () => {
    const root = temp.make();
    for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(root, `f${i}`), '');
    await expect(scanFolder(root, 10)).rejects.toThrow(TOO_MANY);
  });

  it('stops counting at the limit: the rest of a big folder is never read', async () => {
    const root = temp.make();
    for (let d = 0; d < 200; d++) {
      fs.mkdirSync(path.join(root, `d${d}`));
      for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, `d${d}`, `f${i}`), '');
    }
    const opened = vi.spyOn(fs.promises, 'opendir');
    await expect(scanFolder(root, 10)).rejects.toThrow(TOO_MANY);
    // The top folder and the three folders that hold files 1 to 11: not the other 197.
    expect(opened.mock.calls.length).toBeLessThanOrEqual(4);
  });
});

describe('ReviewCopy.create: the file cap', () => {
  it('refuses a repository with more tracked files than the cap before checking anything out, and leaves nothing behind', async () => {
    const repo = folder({ tracked: 30, untracked: 0, git: true });
    expect(indexEntryCount(path.join(repo, '.git', 'index'))).toBe(30);
    const { dir, made, phases } = makeCopy(repo, 10);
    await expect(made).rejects.toMatchObject({ code: 'review_too_large', message: expect.stringMatching(TOO_MANY) });
    // Refused from the index's header: nothing hashed ('indexing') or checked out ('copying').
    expect(phases).not.toContain('indexing');
    expect(phases).not.toContain('copying');
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('stops a git listing as soon as it passes the cap', async () => {
    const repo = folder({ tracked: 0, untracked: 3000, git: true });
    const tooMany = new Error('too many');
    const list = (limit: number) => gitZ(['ls-files', '-z', '-o'], { cwd: repo, config: [`safe.directory=${repo}`], maxRecords: { limit, tooMany: () => tooMany } });
    await expect(list(10)).rejects.toBe(tooMany);
    expect(await list(3000)).toHaveLength(3000);
  });

  it('counts untracked files into the cap while git lists them', async () => {
    const repo = folder({ tracked: 5, untracked: 20, git: true });
    const { dir, made } = makeCopy(repo, 10);
    await expect(made).rejects.toMatchObject({ code: 'review_too_large' });
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('refuses a plain folder over the cap, and copies one under it', async () => {
    const big = folder({ tracked: 0, untracked: 11, git: false });
    const refused = makeCopy(big, 10);
    await expect(refused.made).rejects.toMatchObject({ code: 'review_too_large' });
    expect(fs.existsSync(refused.dir)).toBe(false);

    const small = folder({ tracked: 0, untracked: 10, git: false });
    const copy = await makeCopy(small, 10).made;
    expect(copy.meta.fileCount).toBe(10);
  });

  it('copies a repository right at the cap', async () => {
    const repo = folder({ tracked: 6, untracked: 4, git: true });
    const copy = await makeCopy(repo, 10).made;
    expect(copy.meta.fileCount).toBe(10);
    expect(fs.readFileSync(path.join(copy.workDir, 'u3.txt'), 'utf8')).toBe('3\n');
  });
});

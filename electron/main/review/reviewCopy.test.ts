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

describe('ReviewCopy progress', () => {
  /** Every progress report of making a copy (and, for a repository, of copying its history). */
  async function reports(hostPath: string, ignored: boolean) {
    const seen: Array<{ phase: string; files: number; total: number | null; message: string }> = [];
    const copy = await ReviewCopy.create({
      dir: path.join(temp.make(), 'copy'), chatId: 'c1', hostPath, branch: 'berth/c1', contents: { ignored, include: [] }, owner: null, now: 1, maxFiles: 5000,
      progress: (phase, files, total, message) => seen.push({ phase, files, total, message }),
    });
    await copy.copyHistory(1e9, (phase, files, total, message) => seen.push({ phase, files, total, message }));
    return seen;
  }

  it('says what it is doing in words and leaves the counts to its fields, which the panel shows once', async () => {
    const plain = folder({ tracked: 0, untracked: 1100, git: false });
    const repo = folder({ tracked: 3, untracked: 0, git: true });
    fs.writeFileSync(path.join(repo, '.gitignore'), 'deps/\n');
    fs.mkdirSync(path.join(repo, 'deps'));
    for (let i = 0; i < 1100; i++) fs.writeFileSync(path.join(repo, 'deps', `m${i}.js`), '');
    const all = [...(await reports(plain, false)), ...(await reports(repo, true))];
    // Before: "Copying: 500 of 1100 files", "Copying ignored files: 500 of 1100", shown with
    // " (500 of 1,100 files)" after them; history and the starting point showed "N of N files".
    expect(all.filter((r) => /\d/.test(r.message))).toEqual([]);
    expect(all).toContainEqual({ phase: 'copying', files: 500, total: 1100, message: 'Copying files…' });
    expect(all).toContainEqual({ phase: 'copying', files: 1000, total: 1100, message: 'Copying ignored files…' });
    // Steps whose length is not a count of files report none: the bar runs without a value.
    for (const step of ['Recording the starting point…', 'Copying the repository’s history…']) {
      expect(all.filter((r) => r.message === step)).toEqual([expect.objectContaining({ files: 0, total: null })]);
    }
  }, 60_000); // 1,100 files copied and then read into the copy's shadow: several seconds when the machine is busy
});

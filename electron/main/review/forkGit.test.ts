import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { carrySandboxRepo } from './forkGit.js';

const temp = new TempDirs();
const tmp = (name: string) => temp.make(`berth-forkgit-${name}-`);
afterEach(() => temp.removeAll());

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

/** The fork's fresh repository as sandboxRepo makes it: Berth's config and alternates, HEAD on the fork's branch. */
function freshFork(): string {
  const work = tmp('fork');
  const git = path.join(work, '.git');
  fs.mkdirSync(path.join(git, 'objects', 'info'), { recursive: true });
  fs.mkdirSync(path.join(git, 'refs', 'heads', 'berth'), { recursive: true });
  fs.writeFileSync(path.join(git, 'config'), '[core]\n\tbare = false\n');
  fs.writeFileSync(path.join(git, 'objects', 'info', 'alternates'), '/.berth-git/fork-copy\n');
  fs.writeFileSync(path.join(git, 'HEAD'), 'ref: refs/heads/berth/fork\n');
  return work;
}

function chatRepo(files: Record<string, string>): string {
  const work = tmp('chat');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, '.git', rel)), { recursive: true });
    fs.writeFileSync(path.join(work, '.git', rel), text);
  }
  return work;
}

const carry = (fromWork: string, toWork: string) =>
  carrySandboxRepo({ fromWork, fromBranch: 'berth/chat', toWork, toBranch: 'berth/fork', stage: path.join(path.dirname(toWork), `${path.basename(toWork)}-stage`) });

describe('the chat’s repository carried to a fork', () => {
  it('takes its history and index, moves its branch to the fork’s name, and keeps Berth’s config and alternates', async () => {
    const from = chatRepo({
      HEAD: 'ref: refs/heads/berth/chat\n', 'refs/heads/berth/chat': `${A}\n`, 'refs/heads/topic': `${B}\n`, index: 'DIRC', 'objects/aa/bbbb': 'object',
      config: '[alias]\n\tx = !touch /tmp/x\n[core]\n\thooksPath = /tmp\n', 'hooks/post-checkout': '#!/bin/sh\n', 'objects/info/alternates': '/etc\n', 'index.lock': '',
    });
    const to = freshFork();
    await carry(from, to);
    const git = (rel: string) => fs.readFileSync(path.join(to, '.git', rel), 'utf8');
    expect(git('HEAD')).toBe('ref: refs/heads/berth/fork\n');
    expect(git('refs/heads/berth/fork')).toBe(`${A}\n`);
    expect(git('refs/heads/topic')).toBe(`${B}\n`);
    expect(git('index')).toBe('DIRC');
    expect(git('objects/aa/bbbb')).toBe('object');
    expect(git('config')).toBe('[core]\n\tbare = false\n');
    expect(git('objects/info/alternates')).toBe('/.berth-git/fork-copy\n');
    expect(fs.existsSync(path.join(to, '.git', 'hooks'))).toBe(false);
    // A commit the chat was making as the fork was made leaves no lock that stops the fork's git.
    expect(fs.existsSync(path.join(to, '.git', 'index.lock'))).toBe(false);
    expect(fs.existsSync(`${to}-stage`)).toBe(false);
  });

  it('finds the branch in packed-refs, and leaves a HEAD on another branch as it was', async () => {
    const packed = chatRepo({ HEAD: 'ref: refs/heads/berth/chat\n', 'packed-refs': `# pack-refs with: peeled fully-peeled sorted\n${A} refs/heads/berth/chat\n` });
    const to = freshFork();
    await carry(packed, to);
    expect(fs.readFileSync(path.join(to, '.git', 'refs', 'heads', 'berth', 'fork'), 'utf8')).toBe(`${A}\n`);
    const other = chatRepo({ HEAD: 'ref: refs/heads/topic\n', 'refs/heads/topic': `${B}\n` });
    const to2 = freshFork();
    await carry(other, to2);
    expect(fs.readFileSync(path.join(to2, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/topic\n');
  });

  it('never reads or writes through a link the chat planted: links come as links, and Berth’s files replace them', async () => {
    const outside = tmp('outside');
    fs.writeFileSync(path.join(outside, 'secret'), `${B}\n`);
    const from = chatRepo({ HEAD: 'ref: refs/heads/berth/chat\n' });
    const git = path.join(from, '.git');
    fs.mkdirSync(path.join(git, 'refs', 'heads', 'berth'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'secret'), path.join(git, 'refs', 'heads', 'berth', 'chat'));
    fs.symlinkSync(outside, path.join(git, 'objects'));
    fs.symlinkSync(path.join(outside, 'secret'), path.join(git, 'config'));
    const to = freshFork();
    await carry(from, to);
    // The branch was a link: not read, so the fork's branch has no commit of the host file's text.
    expect(fs.existsSync(path.join(to, '.git', 'refs', 'heads', 'berth', 'fork'))).toBe(false);
    expect(fs.readlinkSync(path.join(to, '.git', 'refs', 'heads', 'berth', 'chat'))).toBe(path.join(outside, 'secret'));
    // objects was a link to a host folder: replaced by a folder of Berth's holding the alternates; the host folder is as it was.
    expect(fs.lstatSync(path.join(to, '.git', 'objects')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(to, '.git', 'objects', 'info', 'alternates'), 'utf8')).toBe('/.berth-git/fork-copy\n');
    expect(fs.readdirSync(outside)).toEqual(['secret']);
    expect(fs.readFileSync(path.join(to, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
  });

  it('keeps the fresh repository when the chat removed its own', async () => {
    const from = tmp('chat');
    const to = freshFork();
    await carry(from, to);
    expect(fs.readFileSync(path.join(to, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/berth/fork\n');
  });
});

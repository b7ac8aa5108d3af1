import { describe, expect, it } from 'vitest';
import { exportBranchName, pullRequestUrl, pushVerdict, webRepository } from './exportBranch.js';

describe('exportBranchName', () => {
  it('names the branch from the chat title, readable and valid', () => {
    expect(exportBranchName('Fix the login form!', new Set())).toBe('berth/fix-the-login-form');
    expect(exportBranchName('  Ünïcödé   café ', new Set())).toBe('berth/unicode-cafe');
    expect(exportBranchName('../..//@{x}.lock', new Set())).toBe('berth/x-lock');
  });
  it('falls back to "chat" for a title without letters or digits', () => {
    expect(exportBranchName('…', new Set())).toBe('berth/chat');
    expect(exportBranchName('日本語', new Set())).toBe('berth/chat');
  });
  it('stays short', () => {
    const name = exportBranchName('a '.repeat(100), new Set());
    expect(name.length).toBeLessThanOrEqual('berth/'.length + 40);
    expect(name).not.toMatch(/-$/);
  });
  it('never takes a name the repository has', () => {
    expect(exportBranchName('Chat 3', new Set(['berth/chat-3']))).toBe('berth/chat-3-2');
    expect(exportBranchName('Chat 3', new Set(['berth/chat-3', 'berth/chat-3-2']))).toBe('berth/chat-3-3');
  });
});

describe('webRepository', () => {
  it('reads https, ssh and scp-like remotes', () => {
    expect(webRepository('https://github.com/acme/site.git')).toEqual({ host: 'github.com', path: 'acme/site' });
    expect(webRepository('git@github.com:acme/site.git')).toEqual({ host: 'github.com', path: 'acme/site' });
    expect(webRepository('ssh://git@gitlab.com:2222/group/sub/proj.git')).toEqual({ host: 'gitlab.com', path: 'group/sub/proj' });
    expect(webRepository('https://user:token@bitbucket.org/team/repo')).toEqual({ host: 'bitbucket.org', path: 'team/repo' });
  });
  it('has no web page for a local path or a file URL', () => {
    expect(webRepository('/srv/git/site.git')).toBeNull();
    expect(webRepository('file:///srv/git/site.git')).toBeNull();
    expect(webRepository('../other')).toBeNull();
  });
});

describe('pullRequestUrl', () => {
  it('opens the compare page of each known forge, never carrying credentials', () => {
    expect(pullRequestUrl('git@github.com:acme/site.git', 'berth/fix', 'main')).toBe('https://github.com/acme/site/compare/main...berth%2Ffix?expand=1');
    expect(pullRequestUrl('https://gitlab.com/g/p.git', 'berth/fix', null)).toBe('https://gitlab.com/g/p/-/merge_requests/new?merge_request%5Bsource_branch%5D=berth%2Ffix');
    expect(pullRequestUrl('https://me:secret@bitbucket.org/t/r.git', 'berth/fix', 'main')).toBe('https://bitbucket.org/t/r/pull-requests/new?source=berth%2Ffix&dest=main');
    expect(pullRequestUrl('https://codeberg.org/o/r.git', 'berth/fix', 'main')).toBe('https://codeberg.org/o/r/compare/main...berth%2Ffix');
  });
  it('gives none for an unknown host or a path', () => {
    expect(pullRequestUrl('ssh://git@git.example.net/o/r.git', 'berth/fix', 'main')).toBeNull();
    expect(pullRequestUrl('/srv/git/site.git', 'berth/fix', 'main')).toBeNull();
  });
});

describe('pushVerdict', () => {
  it('tells a rejection, credentials and an unreachable remote apart', () => {
    expect(pushVerdict(0, '', 'origin', 'b')).toEqual({ ok: true });
    expect(pushVerdict(1, ' ! [rejected]        b -> b (non-fast-forward)', 'origin', 'b')).toMatchObject({ ok: false, reason: 'rejected' });
    expect(pushVerdict(1, ' ! [remote rejected] b -> b (pre-receive hook declined)', 'origin', 'b')).toMatchObject({ ok: false, reason: 'rejected' });
    expect(pushVerdict(128, 'git@github.com: Permission denied (publickey).', 'origin', 'b')).toMatchObject({ ok: false, reason: 'auth' });
    expect(pushVerdict(128, "fatal: could not read Username for 'https://github.com': terminal prompts disabled", 'origin', 'b')).toMatchObject({ ok: false, reason: 'auth' });
    expect(pushVerdict(128, "fatal: '/nope' does not appear to be a git repository", 'origin', 'b')).toMatchObject({ ok: false, reason: 'unreachable' });
    expect(pushVerdict(2, 'something else', 'origin', 'b')).toMatchObject({ ok: false, reason: 'other' });
  });
});

/**
 * Apply by hunk and by line, and conflicts that can be resolved, on the real engine with real git:
 * the folder gets exactly the chosen lines, the rest stays in the copy, a user's edit in between
 * merges or is a conflict with nothing written, undo gives the folder back byte for byte, and
 * nothing the chat plants in its copy (.gitattributes, filters, its .git/config) changes what is
 * applied. The stuck case (both changed a line; Refresh keeps the chat's) ends with the user's
 * resolution applied.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { parseFilePatch, wholeHunk } from '../../electron/main/policy/hunkPatch.js';
import { BUSYBOX } from '../support/docker.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from '../support/harness.js';
import { ReviewScenario } from '../support/reviewScenario.js';

const h = new Harness();
let core: BerthCore;
let dataDir: string;
let profile: string;
const s = new ReviewScenario(h, () => core, () => dataDir, () => profile);

beforeAll(async () => {
  ({ core, dataDir } = await h.coreWithProfile());
  profile = (await h.profile(core, { image: BUSYBOX })).name;
});
afterAll(() => h.cleanup());

const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
const BASE = `${LINES.join('\n')}\n`;
const with_ = (edits: Record<number, string>) => `${LINES.map((l, i) => edits[i + 1] ?? l).join('\n')}\n`;
const read = (root: string, p: string) => fs.readFileSync(path.join(root, p), 'utf8');

/** The chat writes a file in its copy (base64, so any byte goes through the shell unchanged). */
async function chatWrites(chatId: string, files: Record<string, string>) {
  const script = Object.entries(files).map(([p, t]) => `mkdir -p "$(dirname '${p}')" && printf '%s' '${Buffer.from(t).toString('base64')}' | base64 -d > '${p}'`).join(' && ');
  await s.sh(chatId, `cd /workspace && ${script}`);
}

async function fileDiff(chatId: string, hostPath: string, p: string) {
  const copy = (await core.review.changes({ chatId, hostPath })).copies[0]!;
  const d = await core.review.diff({ chatId, hostPath, path: p });
  return { version: copy.version, patch: parseFilePatch(d.diff ?? ''), copy };
}

function plainFolder(name: string): string {
  const dir = h.workspace(name, { 'f.txt': BASE });
  chownTree(dir, SANDBOX_UID, SANDBOX_GID);
  return dir;
}

describe('Review: apply by hunk and by line', () => {
  it('a git repository: one hunk of two goes to the folder, the other stays, and undo gives the bytes back', async () => {
    const repo = s.userRepo('lines-git', { 'f.txt': BASE });
    const { chatId, hostPath } = await s.reviewChat(repo);
    await chatWrites(chatId, { 'f.txt': with_({ 2: 'chat two', 18: 'chat eighteen' }) });
    const { version, patch } = await fileDiff(chatId, hostPath, 'f.txt');
    expect(patch.hunks).toHaveLength(2);
    const r = await core.review.applyLines({ chatId, hostPath, version, files: [{ path: 'f.txt', ...wholeHunk(patch.hunks[0]!) }] });
    expect(r).toMatchObject({ ok: true, applied: ['f.txt'], conflicts: [] });
    expect(read(repo, 'f.txt')).toBe(with_({ 2: 'chat two' }));
    // The rest is still a change of the copy: only the second hunk.
    const rest = await fileDiff(chatId, hostPath, 'f.txt');
    expect(rest.patch.hunks.flatMap((x) => x.lines.filter((l) => l.kind !== ' ').map((l) => `${l.kind}${l.text}`))).toEqual(['-line 18', '+chat eighteen']);
    expect(rest.copy.lastApply?.files).toEqual(['f.txt']);
    const undone = await core.review.undoApply({ chatId, hostPath });
    expect(undone.ok).toBe(true);
    expect(read(repo, 'f.txt')).toBe(BASE);
    expect(s.userGit(repo, 'status', '--porcelain')).toBe('');
  });

  it('a plain folder: one line of a hunk (one added line of two) is applied, the other stays in the copy', async () => {
    const dir = plainFolder('lines-plain');
    const { chatId, hostPath } = await s.reviewChat(dir);
    await chatWrites(chatId, { 'f.txt': BASE.replace('line 5\n', 'line 5\nnew A\nnew B\n') });
    const { version, patch } = await fileDiff(chatId, hostPath, 'f.txt');
    const b = patch.hunks[0]!.lines.find((l) => l.text === 'new B')!;
    const r = await core.review.applyLines({ chatId, hostPath, version, files: [{ path: 'f.txt', removed: [], added: [b.newNo!] }] });
    expect(r.ok).toBe(true);
    expect(read(dir, 'f.txt')).toBe(BASE.replace('line 5\n', 'line 5\nnew B\n'));
    const rest = await fileDiff(chatId, hostPath, 'f.txt');
    expect(rest.patch.hunks.flatMap((x) => x.lines.filter((l) => l.kind !== ' ').map((l) => `${l.kind}${l.text}`))).toEqual(['+new A']);
  });

  it('a chosen path outside the folder is refused in words, beside real ones, and nothing is written', async () => {
    const dir = plainFolder('lines-outside');
    const { chatId, hostPath } = await s.reviewChat(dir);
    await chatWrites(chatId, { 'f.txt': with_({ 3: 'chat three' }) });
    const { version, patch } = await fileDiff(chatId, hostPath, 'f.txt');
    for (const bad of ['../f.txt', './f.txt', '/etc/passwd', 'a/../f.txt']) {
      const r = await core.review.applyLines({ chatId, hostPath, version, files: [{ path: 'f.txt', ...wholeHunk(patch.hunks[0]!) }, { path: bad, removed: [], added: [1] }] });
      expect(r.ok).toBe(false);
      expect(r.message).toMatch(/^Nothing was applied: ".*" has no changes in the chat's copy/);
    }
    expect(read(dir, 'f.txt')).toBe(BASE);
  });

  it('a user edit between attach and apply: moved lines merge; changed lines are a conflict with both sides and nothing written', async () => {
    const repo = s.userRepo('lines-moved', { 'f.txt': BASE });
    const { chatId, hostPath } = await s.reviewChat(repo);
    await chatWrites(chatId, { 'f.txt': with_({ 10: 'chat ten' }) });
    const { version, patch } = await fileDiff(chatId, hostPath, 'f.txt');
    const sel = { path: 'f.txt', ...wholeHunk(patch.hunks[0]!) };
    // The user adds lines at the top: the hunk's lines moved down, still there once.
    fs.writeFileSync(path.join(repo, 'f.txt'), `mine 0\nmine 0b\n${BASE}`);
    expect((await core.review.applyLines({ chatId, hostPath, version, files: [sel] })).ok).toBe(true);
    expect(read(repo, 'f.txt')).toBe(`mine 0\nmine 0b\n${with_({ 10: 'chat ten' })}`);

    await chatWrites(chatId, { 'f.txt': with_({ 10: 'chat ten', 12: 'chat twelve' }) });
    const next = await fileDiff(chatId, hostPath, 'f.txt');
    const mine = `mine 0\nmine 0b\n${with_({ 10: 'chat ten', 12: 'MINE twelve' })}`;
    fs.writeFileSync(path.join(repo, 'f.txt'), mine);
    const r = await core.review.applyLines({ chatId, hostPath, version: next.version, files: [{ path: 'f.txt', ...wholeHunk(next.patch.hunks[0]!) }] });
    expect(r.ok).toBe(false);
    expect(r.conflicts[0]).toMatchObject({ path: 'f.txt', why: 'changed' });
    expect(r.conflicts[0]!.chat).toContain('chat twelve');
    expect(r.conflicts[0]!.base).toContain('line 12');
    expect(r.conflicts[0]!.mine).toContain('MINE twelve');
    expect(read(repo, 'f.txt')).toBe(mine);
  });

  it('undo after lines applied to a folder with the user’s own edits gives back their bytes and leaves their other files alone', async () => {
    const repo = s.userRepo('lines-undo-edits', { 'f.txt': BASE, 'g.txt': BASE });
    const { chatId, hostPath } = await s.reviewChat(repo);
    await chatWrites(chatId, { 'f.txt': with_({ 5: 'chat five', 15: 'chat fifteen' }) });
    const { version, patch } = await fileDiff(chatId, hostPath, 'f.txt');
    const mine = `mine 0\r\n${BASE}no newline at the end`;
    fs.writeFileSync(path.join(repo, 'f.txt'), mine);
    fs.chmodSync(path.join(repo, 'f.txt'), 0o755);
    fs.writeFileSync(path.join(repo, 'g.txt'), 'the user’s own\n');
    const r = await core.review.applyLines({ chatId, hostPath, version, files: [{ path: 'f.txt', ...wholeHunk(patch.hunks[1]!) }] });
    expect(r).toMatchObject({ ok: true, applied: ['f.txt'] });
    expect(read(repo, 'f.txt')).toBe(`mine 0\r\n${with_({ 15: 'chat fifteen' })}no newline at the end`);
    expect(fs.statSync(path.join(repo, 'f.txt')).mode & 0o777).toBe(0o755);
    expect((await core.review.undoApply({ chatId, hostPath })).ok).toBe(true);
    expect(fs.readFileSync(path.join(repo, 'f.txt'))).toEqual(Buffer.from(mine));
    expect(fs.statSync(path.join(repo, 'f.txt')).mode & 0o777).toBe(0o755);
    expect(read(repo, 'g.txt')).toBe('the user’s own\n');
  });

  it('a chosen file the user replaced with a link is refused in words; nothing is written, the link and what it names stay', async () => {
    const dir = plainFolder('lines-link');
    const { chatId, hostPath } = await s.reviewChat(dir);
    await chatWrites(chatId, { 'f.txt': with_({ 3: 'chat three' }) });
    const { version, patch } = await fileDiff(chatId, hostPath, 'f.txt');
    const outside = path.join(h.workspace('lines-link-outside', { 'target.txt': BASE }), 'target.txt');
    fs.rmSync(path.join(dir, 'f.txt'));
    fs.symlinkSync(outside, path.join(dir, 'f.txt'));
    const r = await core.review.applyLines({ chatId, hostPath, version, files: [{ path: 'f.txt', ...wholeHunk(patch.hunks[0]!) }] });
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/"f.txt" in your folder is a link/);
    expect(fs.readlinkSync(path.join(dir, 'f.txt'))).toBe(outside);
    expect(fs.readFileSync(outside, 'utf8')).toBe(BASE);
  });

  it('a change with bytes that are not UTF-8 is applied whole only; a real U+FFFD in the text goes in by lines', async () => {
    const dir = plainFolder('lines-bytes');
    const { chatId, hostPath } = await s.reviewChat(dir);
    const latin1 = Buffer.concat([Buffer.from(with_({ 3: 'caf' }).slice(0, -1)), Buffer.from([0xe9, 0x0a])]).toString('latin1');
    await chatWrites(chatId, { 'f.txt': with_({ 3: 'chat \uFFFD three' }) });
    const { version, patch } = await fileDiff(chatId, hostPath, 'f.txt');
    expect((await core.review.applyLines({ chatId, hostPath, version, files: [{ path: 'f.txt', ...wholeHunk(patch.hunks[0]!) }] })).ok).toBe(true);
    expect(read(dir, 'f.txt')).toBe(with_({ 3: 'chat \uFFFD three' }));

    // The last line ends in byte 0xE9 (Latin-1 "é"): a string would not say it.
    await s.sh(chatId, `cd /workspace && printf '%s' '${Buffer.from(latin1, 'latin1').toString('base64')}' | base64 -d > f.txt`);
    const next = await fileDiff(chatId, hostPath, 'f.txt');
    const r = await core.review.applyLines({ chatId, hostPath, version: next.version, files: [{ path: 'f.txt', ...wholeHunk(next.patch.hunks.at(-1)!) }] });
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/"f.txt" can only be applied as a whole file: it is not UTF-8 text/);
    expect(read(dir, 'f.txt')).toBe(with_({ 3: 'chat \uFFFD three' }));
  });

  it('.gitattributes, a filter and the copy’s own git config have no say in the applied bytes', async () => {
    const repo = s.userRepo('lines-attrs', { 'f.txt': BASE });
    const { chatId, hostPath } = await s.reviewChat(repo);
    const marker = path.join(h.root, 'filter-ran');
    await chatWrites(chatId, {
      '.gitattributes': '* text eol=crlf filter=x whitespace=trailing-space,space-before-tab\n',
      'f.txt': with_({ 3: 'chat three   ', 15: '\t chat fifteen' }),
    });
    // The copy's own .git/config (busybox has no git: written as text), as a chat could write it.
    const config = `[filter "x"]\n\tclean = touch ${marker}\n\tsmudge = touch ${marker}\n\trequired = true\n[apply]\n\twhitespace = fix\n[core]\n\tautocrlf = true\n`;
    await s.sh(chatId, `cd /workspace && printf '%s' '${Buffer.from(config).toString('base64')}' | base64 -d >> .git/config`);
    const { version, patch } = await fileDiff(chatId, hostPath, 'f.txt');
    const all = patch.hunks.map(wholeHunk);
    const r = await core.review.applyLines({ chatId, hostPath, version, files: [{ path: 'f.txt', removed: all.flatMap((x) => x.removed), added: all.flatMap((x) => x.added) }] });
    expect(r.ok).toBe(true);
    expect(fs.readFileSync(path.join(repo, 'f.txt'))).toEqual(Buffer.from(with_({ 3: 'chat three   ', 15: '\t chat fifteen' })));
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(path.join(repo, '.gitattributes'))).toBe(false);
  });
});

describe('Review: conflicts that can be resolved', () => {
  it('both changed the same line: Apply and Refresh refuse, the three-way view shows it, and the user’s choice is applied', async () => {
    const repo = s.userRepo('conflict-stuck', { 'f.txt': BASE });
    const { chatId, hostPath } = await s.reviewChat(repo);
    await chatWrites(chatId, { 'f.txt': with_({ 4: 'chat four', 16: 'chat sixteen' }) });
    fs.writeFileSync(path.join(repo, 'f.txt'), with_({ 4: 'MINE four', 1: 'MINE one' }));
    expect((await core.review.apply({ chatId, hostPath })).problems[0]?.kind).toBe('conflict');
    const refreshed = await core.review.refresh({ chatId, hostPath });
    expect(refreshed.conflicts).toEqual(['f.txt']);
    expect((await core.review.apply({ chatId, hostPath })).ok).toBe(false);
    const view = await core.review.conflict({ chatId, hostPath, path: 'f.txt' });
    expect(view.conflicts).toBe(1);
    expect(view.segments.find((x) => x.kind === 'conflict')).toEqual({ kind: 'conflict', base: ['line 4'], mine: ['MINE four'], chat: ['chat four'] });
    const r = await core.review.resolve({ chatId, hostPath, path: 'f.txt', choices: ['chat'] });
    expect(r.ok).toBe(true);
    const resolved = with_({ 1: 'MINE one', 4: 'chat four', 16: 'chat sixteen' });
    expect(read(repo, 'f.txt')).toBe(resolved);
    expect(read(s.copyWorkDir(chatId), 'f.txt')).toBe(resolved);
    expect((await core.review.changes({ chatId, hostPath })).copies[0]!.files).toEqual([]);
    // Undo last apply covers a resolution too.
    expect((await core.review.undoApply({ chatId, hostPath })).ok).toBe(true);
    expect(read(repo, 'f.txt')).toBe(with_({ 4: 'MINE four', 1: 'MINE one' }));
  });

  it('Refresh merges the user’s changes to other lines of a file the chat changed, so the next Apply is clean', async () => {
    const repo = s.userRepo('conflict-merge', { 'f.txt': BASE });
    const { chatId, hostPath } = await s.reviewChat(repo);
    await chatWrites(chatId, { 'f.txt': with_({ 15: 'chat fifteen' }) });
    fs.writeFileSync(path.join(repo, 'f.txt'), with_({ 2: 'MINE two' }));
    const refreshed = await core.review.refresh({ chatId, hostPath });
    expect(refreshed).toMatchObject({ merged: ['f.txt'], conflicts: [] });
    expect(read(s.copyWorkDir(chatId), 'f.txt')).toBe(with_({ 2: 'MINE two', 15: 'chat fifteen' }));
    const applied = await core.review.apply({ chatId, hostPath });
    expect(applied.ok).toBe(true);
    expect(read(repo, 'f.txt')).toBe(with_({ 2: 'MINE two', 15: 'chat fifteen' }));
  });
});

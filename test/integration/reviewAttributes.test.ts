/**
 * The chat's .gitattributes never shape what the user reviews or what Apply writes: a copy
 * whose attributes say `-diff`, `binary`, a filter, a line-ending or encoding conversion, ident
 * or export-subst (at the top or in a subfolder) is listed, diffed, checkpointed, restored and
 * applied byte for byte as the chat wrote it, and its .gitattributes changes are shown like any
 * other file's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { BUSYBOX } from '../support/docker.js';
import { Harness } from '../support/harness.js';
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

/** UTF-16LE with its byte-order mark: what `working-tree-encoding=UTF-16` would turn into UTF-8. */
const UTF16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi\n', 'utf16le')]);

/** What the chat writes: an attributes file in each folder, and files those attributes would change. */
const PLANTED: Record<string, Buffer> = {
  '.gitattributes': Buffer.from('* -diff\n'),
  'a.txt': Buffer.from('a1\nchat\n'),
  'sub/deep/n.txt': Buffer.from('n1\nchat\n'),
  'bin/.gitattributes': Buffer.from('* binary\n'),
  'bin/b.txt': Buffer.from('plain text\n'),
  'filt/.gitattributes': Buffer.from('* filter=x\n'),
  'filt/f.txt': Buffer.from('filtered?\n'),
  'crlf/.gitattributes': Buffer.from('* text eol=crlf\n'),
  'crlf/w.txt': Buffer.from('one\r\ntwo\r\n'),
  'crlf/lf.txt': Buffer.from('lf only\n'),
  'enc/.gitattributes': Buffer.from('* working-tree-encoding=UTF-16\n'),
  'enc/u.txt': UTF16,
  'id/.gitattributes': Buffer.from('* ident export-subst\n'),
  'id/i.txt': Buffer.from('$Id: planted by the chat $\n$Format:%H$\n'),
};

function writeScript(files: Record<string, Buffer>): string {
  return Object.entries(files)
    .map(([p, b]) => `mkdir -p "$(dirname '${p}')" && printf '%s' '${b.toString('base64')}' | base64 -d > '${p}'`)
    .join(' && ');
}

function bytesUnder(root: string, files: readonly string[]): Record<string, string> {
  return Object.fromEntries(files.map((p) => [p, fs.readFileSync(path.join(root, p)).toString('base64')]));
}
const planted = Object.fromEntries(Object.entries(PLANTED).map(([p, b]) => [p, b.toString('base64')]));

describe('Review mode: the copy’s .gitattributes', () => {
  it('never hide a change or alter a byte: diffs, restores and Apply see what the chat wrote', async () => {
    const repo = s.userRepo('attrs', { 'a.txt': 'a1\n', 'sub/deep/n.txt': 'n1\n' });
    const { chatId, hostPath } = await s.reviewChat(repo);
    await s.sh(chatId, writeScript(PLANTED));

    const copy = (await core.review.changes({ chatId })).copies[0]!;
    const byPath = Object.fromEntries(copy.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(Object.keys(PLANTED).sort());
    // Every text file is shown as text, with its lines: never "Binary files differ" under binary: false.
    for (const f of copy.files) {
      if (f.path === 'enc/u.txt') continue; // UTF-16 holds NUL bytes: binary by its content, as in any repository
      const full = f.diff ?? (await core.review.diff({ chatId, hostPath, path: f.path })).diff;
      expect({ path: f.path, binary: f.binary, binaryText: /Binary files/.test(full ?? '') }).toEqual({ path: f.path, binary: false, binaryText: false });
    }
    const diffOf = async (p: string) => (await core.review.diff({ chatId, hostPath, path: p })).diff ?? '';
    expect(await diffOf('a.txt')).toContain('+chat');
    expect(await diffOf('sub/deep/n.txt')).toContain('+chat');
    expect(await diffOf('bin/b.txt')).toContain('+plain text');
    expect(await diffOf('.gitattributes')).toContain('+* -diff');
    expect(await diffOf('crlf/.gitattributes')).toContain('+* text eol=crlf');
    // ident would show (and apply) "$Id$" instead of what the file says.
    expect(await diffOf('id/i.txt')).toContain('+$Id: planted by the chat $');
    expect(byPath['enc/u.txt']).toMatchObject({ status: 'added', binary: true });

    // A restore writes back exactly what the checkpoint holds: no line ending, encoding or ident expansion added.
    const cp = await core.review.checkpoint({ chatId, label: 'planted' });
    await s.sh(chatId, 'rm -rf bin filt crlf enc id sub a.txt .gitattributes');
    await core.review.restore({ chatId, checkpointId: cp.id });
    expect(bytesUnder(s.copyWorkDir(chatId), Object.keys(PLANTED))).toEqual(planted);

    // Apply writes the bytes the chat wrote, and the folder then matches the copy exactly.
    expect(await core.review.apply({ chatId, hostPath })).toMatchObject({ ok: true, problems: [] });
    expect(bytesUnder(repo, Object.keys(PLANTED))).toEqual(planted);
    expect((await core.review.changes({ chatId })).copies[0]!.files).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  applyProblems, branchNameFor, isSecretLooking, parseRawDiff, partitionSecrets, selectChanges, symlinkProblem, unsafePathReason, type ApplyCandidate,
} from './reviewPolicy.js';

const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

function candidate(over: Partial<ApplyCandidate>): ApplyCandidate {
  return { status: 'modified', path: 'f.txt', oldPath: null, oldMode: '100644', newMode: '100644', oldOid: A, newOid: B, tooLarge: false, linkTarget: null, ...over };
}

describe('isSecretLooking', () => {
  it.each(['.env', '.env.local', 'config/.env.production', 'id_rsa', 'id_ed25519.pub', 'certs/server.key', 'tls.pem', 'credentials.json', 'secrets.yaml', '.npmrc', '.netrc', 'home/.ssh/config', '.aws/credentials', 'terraform.tfstate'])(
    'treats %s as a secret',
    (p) => expect(isSecretLooking(p)).toBe(true),
  );
  it.each(['.env.example', 'src/env.ts', 'README.md', 'node_modules/x/index.js', 'keyboard.js', 'docs/secretary.md', 'package.json'])('not %s', (p) => {
    expect(isSecretLooking(p)).toBe(false);
  });
  it('keeps a secret the user named, and only that one', () => {
    expect(partitionSecrets(['.env', '.env.local', 'a.txt'], ['.env'])).toEqual({ keep: ['.env', 'a.txt'], excluded: ['.env.local'] });
  });
});

describe('parseRawDiff', () => {
  it('reads added, modified, deleted, renamed and type changes, with paths holding spaces and tabs', () => {
    const parts = [
      `:000000 100644 ${Z} ${A} A`, 'new file.txt',
      `:100644 100644 ${A} ${B} M`, 'dir/mod\tified',
      `:100644 000000 ${A} ${Z} D`, 'gone',
      `:100644 100644 ${A} ${A} R100`, 'old name', 'new name',
      `:100644 120000 ${A} ${B} T`, 'link',
    ];
    expect(parseRawDiff(parts).map((c) => [c.status, c.path, c.oldPath])).toEqual([
      ['added', 'new file.txt', null],
      ['modified', 'dir/mod\tified', null],
      ['deleted', 'gone', null],
      ['renamed', 'new name', 'old name'],
      ['typechange', 'link', null],
    ]);
  });
});

describe('apply decisions', () => {
  it('refuses links out of the folder and allows links inside it', () => {
    expect(symlinkProblem('a', '/etc')).toMatch(/outside/);
    expect(symlinkProblem('a', '~')).toMatch(/outside/);
    expect(symlinkProblem('a', '..')).toMatch(/leaves/);
    expect(symlinkProblem('sub/a', '../../x')).toMatch(/leaves/);
    expect(symlinkProblem('a', '.git/hooks')).toMatch(/\.git/);
    expect(symlinkProblem('sub/a', '../b.txt')).toBeNull();
    expect(symlinkProblem('a', 'b.txt')).toBeNull();
  });

  it('refuses paths that leave the folder or enter a .git folder', () => {
    expect(unsafePathReason('../x')).toMatch(/leaves/);
    expect(unsafePathReason('/etc/passwd')).toMatch(/not a path/);
    expect(unsafePathReason('sub/.GIT/config')).toMatch(/\.git/);
    expect(unsafePathReason('src/a.ts')).toBeNull();
  });

  it('lists a conflict for each path the user also changed, on either side of a rename', () => {
    const problems = applyProblems(
      [candidate({ path: 'a.txt' }), candidate({ status: 'renamed', path: 'new.txt', oldPath: 'old.txt' }), candidate({ path: 'free.txt' })],
      new Set(['a.txt', 'old.txt']),
    );
    expect(problems.map((p) => [p.path, p.kind])).toEqual([['a.txt', 'conflict'], ['old.txt', 'conflict']]);
  });

  it('refuses nested repositories, too-large files and unsafe links', () => {
    const problems = applyProblems(
      [
        candidate({ path: 'vendor/lib', newMode: '160000' }),
        candidate({ path: 'big.bin', tooLarge: true }),
        candidate({ path: 'l', newMode: '120000', linkTarget: '/etc/passwd' }),
      ],
      new Set(),
    );
    expect(problems.map((p) => p.kind)).toEqual(['unsafe_path', 'too_large', 'unsafe_symlink']);
  });

  it('selects changes by new or old path', () => {
    const all = [candidate({ path: 'a' }), candidate({ status: 'renamed', path: 'n', oldPath: 'o' })];
    expect(selectChanges(all, ['o']).map((c) => c.path)).toEqual(['n']);
    expect(selectChanges(all, undefined)).toHaveLength(2);
  });

  it('names the branch berth/<chat> with characters a ref may hold', () => {
    expect(branchNameFor('4f1c-9a')).toBe('berth/4f1c-9a');
    expect(branchNameFor('a b..c~^:')).toBe('berth/a-b-c');
  });
});

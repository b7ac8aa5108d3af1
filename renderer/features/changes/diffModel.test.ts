import { describe, expect, it } from 'vitest';
import { LARGE_DIFF_LINES, diffTokens, languageFor, noContentNote, parseFileDiff } from './diffModel';

export const MODIFIED = `diff --git a/src/app.ts b/src/app.ts
index 1111111..2222222 100644
--- a/src/app.ts
+++ b/src/app.ts
@@ -1,3 +1,4 @@
 const a = 1;
-const b = 2;
+const b = 3;
+export const c = a + b;
 console.log(a);
`;

describe('parseFileDiff', () => {
  it('counts additions and deletions of a modified file', () => {
    const d = parseFileDiff(MODIFIED);
    expect(d.binary).toBe(false);
    expect(d.large).toBe(false);
    expect(d.additions).toBe(2);
    expect(d.deletions).toBe(1);
    expect(d.hunks).toHaveLength(1);
  });

  it('says a binary file changed', () => {
    const text = 'diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n';
    const d = parseFileDiff(text);
    expect(d.binary).toBe(true);
    expect(d.hunks).toHaveLength(0);
  });

  it('reads a diff without the git header and a new file', () => {
    const d = parseFileDiff('--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+# Notes\n+hello\n');
    expect(d.additions).toBe(2);
    expect(d.deletions).toBe(0);
  });

  it('marks a very large diff as large', () => {
    const n = LARGE_DIFF_LINES + 10;
    const body = Array.from({ length: n }, (_, i) => `+line ${i}`).join('\n');
    const d = parseFileDiff(`--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,${n} @@\n${body}\n`);
    expect(d.lines).toBe(n);
    expect(d.large).toBe(true);
  });

  it('says what changed when no line did: an empty file added or deleted, a rename, a mode change', () => {
    const note = noContentNote;
    expect(note('diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\n')).toBe('An empty file was added.');
    expect(note('diff --git a/empty.txt b/empty.txt\ndeleted file mode 100644\nindex e69de29..0000000\n')).toBe('An empty file was deleted.');
    expect(note('diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n')).toBe('Renamed; its content did not change.');
    expect(note('diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n')).toBe('Only its mode changed (100644 → 100755).');
  });

  it('is empty for no text', () => {
    expect(parseFileDiff(null).hunks).toEqual([]);
    expect(parseFileDiff('', true).binary).toBe(true);
  });
});

describe('highlighting', () => {
  it('knows common languages by extension, and none for unknown ones', () => {
    expect(languageFor('src/app.ts')).toBe('ts');
    expect(languageFor('App.tsx')).toBe('typescript');
    expect(languageFor('main.py')).toBe('py');
    expect(languageFor('data.unknownext')).toBeNull();
  });

  it('tokenizes a TypeScript diff into highlighted nodes', () => {
    const d = parseFileDiff(MODIFIED);
    const tokens = diffTokens(d.hunks, 'src/app.ts', d.lines);
    expect(tokens).not.toBeNull();
    const flat = JSON.stringify(tokens);
    expect(flat).toContain('hljs-keyword');
  });

  it('draws plain text for an unknown language', () => {
    const d = parseFileDiff(MODIFIED);
    expect(diffTokens(d.hunks, 'x.unknownext', d.lines)).toBeNull();
  });
});

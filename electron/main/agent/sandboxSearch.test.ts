import { describe, expect, it } from 'vitest';
import { capLines, findGlobTest, MATCH_LINE_CHARS, SEARCH_MAX_BYTES, searchScript } from './sandboxSearch.js';

describe('search helpers', () => {
  it('matches a glob without a slash by name, and one with a slash by path under the folder', () => {
    expect(findGlobTest('/workspace', '*.ts')).toBe("-name '*.ts'");
    expect(findGlobTest('/workspace/', 'src/**/*.ts')).toBe("-path '/workspace/src/*.ts'");
    expect(findGlobTest('/w', './a/**')).toBe("-path '/w/a/*'");
  });

  it('uses ripgrep when the image has it, else grep over find, both capped in the sandbox', () => {
    const s = searchScript('/workspace', { pattern: "it's", glob: '*.md', ignore_case: true });
    expect(s).toContain("if command -v rg >/dev/null 2>&1; then rg -n -H --no-heading --color never -i --glob '*.md' -e 'it'\\''s' -- '/workspace'; else find ");
    expect(s).toContain("-type f -name '*.md' -print0 | xargs -0 grep -nHIE -i -e 'it'\\''s' --; fi 2>&1 | head -n 201 | head -c 60000");
  });

  it('caps lines, cuts long ones, drops binary ones and a partial last line, and says what was left out', () => {
    const long = `f:1:${'x'.repeat(MATCH_LINE_CHARS + 10)}`;
    expect(capLines(`a\n${long}\nb\u0000c\n`, 5, 'matches')).toEqual({ lines: ['a', `f:1:${'x'.repeat(MATCH_LINE_CHARS - 4)} […line cut]`], note: '' });
    expect(capLines('a\nb\nc\n', 2, 'matches').note).toBe('[2 matches shown; more were left out. Narrow the pattern, path or glob to see the rest.]');
    const full = `${'y'.repeat(SEARCH_MAX_BYTES - 8)}\npartial`; // exactly the sandbox's cap, cut mid-line
    expect(capLines(full, 5, 'files')).toMatchObject({ lines: [expect.stringMatching(/^y+ \[…line cut\]$/)], note: expect.stringContaining('1 files shown; more were left out') });
  });
});

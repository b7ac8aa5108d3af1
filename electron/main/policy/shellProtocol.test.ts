// Round-tripping quoted strings needs a real /bin/sh; this test file is the only place policy code meets a process.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, findCommandEnd, shellQuote } from './shellProtocol.js';

const MARKER = '__BERTH_END_7f3a9c__';

describe('shellQuote', () => {
  it.each([
    'plain',
    '',
    "it's",
    "''",
    '"double" quotes',
    '$HOME and ${PATH}',
    '`id` and $(id)',
    'line one\nline two\n',
    'back\\slash \\n',
    '; rm -rf / #',
    '*  ?[a]  ~',
    "mixed '\"$`\\\n\t end",
    'ünïcödé ✓',
  ])('survives /bin/sh unchanged: %j', (value) => {
    const out = execFileSync('/bin/sh', ['-c', `printf %s ${shellQuote(value)}`], { encoding: 'utf8' });
    expect(out).toBe(value);
  });

  it('keeps each argument of a command line a single word', () => {
    const line = commandLine(MARKER, '/work space', "/it's", 'echo "$1"; `x`', 7);
    const script = `__berth_run() { printf '[%s]' "$@"; }\n${line}`;
    const out = execFileSync('/bin/sh', ['-c', script], { encoding: 'utf8' });
    expect(out).toBe(`[${MARKER}][/work space][/it's][echo "$1"; \`x\`][7]`);
  });
});

describe('findCommandEnd', () => {
  it('parses the end line and the bytes of output before it', () => {
    const buf = Buffer.from(`hello\n${MARKER} 0 /tmp\nnext`);
    expect(findCommandEnd(buf, MARKER)).toEqual({ outputEnd: 6, consumed: buf.indexOf('next'), exitCode: 0, cwd: '/tmp' });
  });

  it('reads a non-zero exit code', () => {
    expect(findCommandEnd(Buffer.from(`${MARKER} 127 /workspace\n`), MARKER)).toMatchObject({ exitCode: 127, cwd: '/workspace' });
  });

  it('returns null until the newline has arrived', () => {
    expect(findCommandEnd(Buffer.from(`out\n${MARKER} 0 /tm`), MARKER)).toBeNull();
    expect(findCommandEnd(Buffer.from(`out\n${MARKER.slice(0, 5)}`), MARKER)).toBeNull();
    expect(findCommandEnd(Buffer.from('no marker at all\n'), MARKER)).toBeNull();
  });

  it('keeps a cwd with spaces whole', () => {
    expect(findCommandEnd(Buffer.from(`${MARKER} 0 /workspace/My Project/src dir\n`), MARKER)?.cwd).toBe('/workspace/My Project/src dir');
  });

  it('reports no cwd when the shell could not record one', () => {
    expect(findCommandEnd(Buffer.from(`${MARKER} 1 \n`), MARKER)).toMatchObject({ exitCode: 1, cwd: null });
  });

  it('counts output bytes, not characters, before the marker', () => {
    const buf = Buffer.from(`ü✓\n${MARKER} 0 /\n`);
    expect(findCommandEnd(buf, MARKER)?.outputEnd).toBe(Buffer.byteLength('ü✓\n'));
    expect(findCommandEnd(buf, MARKER)?.consumed).toBe(buf.length);
  });
});

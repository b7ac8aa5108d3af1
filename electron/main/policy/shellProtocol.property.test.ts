// Property-based tests (fast-check) of the shell's framing: output is random bytes, marker
// fragments and near-miss end lines; the end line must be found exactly where it is, never
// earlier, and a partial one must wait for more bytes rather than end the command.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_END_LINE, findCommandEnd, parseEndLine } from './shellProtocol.js';

const MARKER = '__BERTH_END_5e1d0c2b9a__';
const bytes = (s: string) => Buffer.from(s, 'utf8');

/**
 * Output a command can produce without knowing its marker: random bytes, any proper prefix of
 * the marker (so a split marker is exercised), newlines and digits that look like an end line.
 */
const outputPiece = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  fc.nat(MARKER.length - 1).map((n) => bytes(MARKER.slice(0, n))),
  fc.constantFrom(bytes('\n'), bytes(' 0 /tmp\n'), bytes(' 255 /\n'), bytes('_'), bytes('__BERTH_END_')),
);
const output = fc.array(outputPiece, { maxLength: 12 }).map((parts) => Buffer.concat(parts)).filter((b) => b.indexOf(MARKER) < 0);
const exitCode = fc.nat(255);
const cwd = fc.option(fc.stringMatching(/^\/[^\n]{0,40}$/), { nil: null });
const anyBytes = fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a));
const endLine = (rc: number, dir: string | null) => bytes(`${MARKER} ${rc} ${dir ?? ''}\n`);

describe('findCommandEnd (properties)', () => {
  it('finds the end line right after the output, whatever the output and whatever follows', () => {
    fc.assert(
      fc.property(output, exitCode, cwd, anyBytes, (out, rc, dir, after) => {
        const line = endLine(rc, dir);
        const end = findCommandEnd(Buffer.concat([out, line, after]), MARKER);
        expect(end).toEqual({ outputEnd: out.length, consumed: out.length + line.length, exitCode: rc, cwd: dir });
      }),
    );
  });

  it('never ends a command on output that does not hold its marker', () => {
    fc.assert(
      fc.property(output, (out) => {
        expect(findCommandEnd(out, MARKER)).toBeNull();
      }),
    );
  });

  it('skips near-miss lines that start with the marker and ends at the real one', () => {
    const nearMiss = fc.oneof(
      fc.stringMatching(/^[a-z]{1,10}$/).map((s) => ` ${s}\n`), // not a number
      fc.integer({ min: 1000, max: 99999 }).map((n) => ` ${n} /x\n`), // more than three digits
      fc.stringMatching(/^[a-z]{1,10}$/).map((s) => ` 0 ${s}\n`), // a cwd that is not absolute
    );
    fc.assert(
      fc.property(output, nearMiss, output, exitCode, cwd, (a, miss, b, rc, dir) => {
        const prefix = Buffer.concat([a, bytes(MARKER + miss), b]);
        const end = findCommandEnd(Buffer.concat([prefix, endLine(rc, dir)]), MARKER);
        expect(end?.outputEnd).toBe(prefix.length);
        expect(end?.exitCode).toBe(rc);
      }),
    );
  });

  it('any result it gives is a well-formed end line inside the buffer, for any bytes at all', () => {
    const withMarkers = fc.array(fc.oneof(anyBytes, fc.constant(bytes(MARKER)), fc.constant(bytes(' 7 /w\n'))), { maxLength: 8 }).map((p) => Buffer.concat(p));
    fc.assert(
      fc.property(withMarkers, (buf) => {
        const end = findCommandEnd(buf, MARKER);
        if (end === null) return;
        expect(buf.subarray(end.outputEnd, end.outputEnd + MARKER.length).toString()).toBe(MARKER);
        expect(end.consumed).toBeLessThanOrEqual(buf.length);
        expect(buf[end.consumed - 1]).toBe(0x0a);
        expect(end.exitCode).toBeGreaterThanOrEqual(0);
        expect(end.exitCode).toBeLessThanOrEqual(999);
      }),
    );
  });
});

describe('parseEndLine (properties)', () => {
  it('waits for every proper prefix of an end line and parses the whole one, however it is split', () => {
    fc.assert(
      fc.property(exitCode, cwd, (rc, dir) => {
        const line = endLine(rc, dir);
        for (let n = MARKER.length; n < line.length; n++) expect(parseEndLine(line.subarray(0, n), MARKER)).toBe('incomplete');
        expect(parseEndLine(line, MARKER)).toMatchObject({ exitCode: rc, consumed: line.length });
      }),
    );
  });

  it('gives up on a marker followed by more than an end line’s worth of bytes without a newline', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (tail) => {
        const filler = Buffer.alloc(MAX_END_LINE + 1, 0x61);
        const noNewline = Buffer.from(tail.map((b) => (b === 0x0a ? 0x20 : b)));
        expect(parseEndLine(Buffer.concat([bytes(MARKER), filler, noNewline]), MARKER)).toBeNull();
      }),
    );
  });
});

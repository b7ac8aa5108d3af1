import { describe, expect, it } from 'vitest';
import { judgeMountProof, mountProofCommand, type ExpectedMount } from './mountProof.js';

const home: ExpectedMount = { source: '/data/homes/k', target: '/home/berth', dev: '2049', ino: '7' };
const a: ExpectedMount = { source: '/home/u/a', target: '/workspace/a', dev: '2049', ino: '131' };
const b: ExpectedMount = { source: '/home/u/b b', target: '/workspace/b b', dev: '2049', ino: '18446744073709551000' };

describe('mount proof', () => {
  it('asks for device and inode of every target, as separate arguments (no shell)', () => {
    expect(mountProofCommand([home, a, b])).toEqual(['stat', '-c', '%d %i', '/home/berth', '/workspace/a', '/workspace/b b']);
  });

  it('passes only when every line matches its mount, in order, inode beyond 2^53 included', () => {
    expect(judgeMountProof(home, [a, b], 0, '2049 7\n2049 131\n2049 18446744073709551000\n')).toEqual({ ok: true, proven: true });
    expect(judgeMountProof(home, [a, b], 0, '2049 7\n2049 131\n2049 18446744073709551001\n')).toEqual({ ok: false, kind: 'swapped', mount: b });
    expect(judgeMountProof(home, [a, b], 0, '2049 7\n2050 131\n2049 18446744073709551000\n')).toEqual({ ok: false, kind: 'swapped', mount: a });
    expect(judgeMountProof(home, [a, b], 0, '2049 7\n2049 18446744073709551000\n2049 131\n')).toMatchObject({ ok: false, kind: 'swapped' });
  });

  it('an engine that sees other numbers for its own home (a VM, a remote engine) cannot be compared', () => {
    expect(judgeMountProof(home, [a], 0, '54 9001\n54 9002\n')).toEqual({ ok: true, proven: false });
  });

  it('anything it cannot read is unproven, never a pass', () => {
    expect(judgeMountProof(home, [a], 127, 'sh: stat: not found\n')).toMatchObject({ ok: false, kind: 'unproven', detail: 'sh: stat: not found' });
    expect(judgeMountProof(home, [a, b], 0, '2049 7\n2049 131\n')).toMatchObject({ ok: false, kind: 'unproven' });
    expect(judgeMountProof(home, [a], 0, '2049 7\n2049 131 extra\n')).toMatchObject({ ok: false, kind: 'unproven' });
    expect(judgeMountProof(home, [a], 0, '')).toMatchObject({ ok: false, kind: 'unproven' });
  });
});

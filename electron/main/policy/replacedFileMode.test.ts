import { describe, expect, it } from 'vitest';
import { replacedFileMode } from './replacedFileMode.js';

describe('replacedFileMode', () => {
  it('keeps the permissions, adds execute where readable or drops it as the change says, and never keeps set-id bits', () => {
    const m = (existing: number, x: boolean) => replacedFileMode(existing, x).toString(8);
    expect(m(0o100640, false)).toBe('640');
    expect(m(0o100640, true)).toBe('750');
    expect(m(0o100600, true)).toBe('700');
    expect(m(0o100755, false)).toBe('644');
    expect(m(0o104755, true)).toBe('755');
    expect(m(0o102750, false)).toBe('640');
  });
});

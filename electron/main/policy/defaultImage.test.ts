import { describe, expect, it } from 'vitest';
import { MINIMAL_NOTE, MINIMAL_READY_NOTE, chooseImage, fullTagOf } from './defaultImage.js';

describe("Berth's default environment: which image a sandbox is made from", () => {
  const base = 'berth-sandbox:1';
  it('names the full image after the base tag', () => {
    expect(fullTagOf(base)).toBe('berth-sandbox:1-full');
    expect(fullTagOf('localhost:5000/berth')).toBe('localhost:5000/berth:full');
  });

  it('a new sandbox of the default image gets the full one when ready, else the minimal one with its note', () => {
    expect(chooseImage({ requested: base, baseTag: base, fullReady: true, running: null })).toEqual({ image: 'berth-sandbox:1-full', note: null });
    expect(chooseImage({ requested: base, baseTag: base, fullReady: false, running: null })).toEqual({ image: base, note: MINIMAL_NOTE });
  });

  it('a running sandbox keeps its image (never swapped under its terminals), and says where it goes next', () => {
    expect(chooseImage({ requested: base, baseTag: base, fullReady: true, running: base })).toEqual({ image: base, note: MINIMAL_READY_NOTE });
    expect(chooseImage({ requested: base, baseTag: base, fullReady: true, running: 'berth-sandbox:1-full' })).toEqual({ image: 'berth-sandbox:1-full', note: null });
  });

  it('any other image is left as the profile names it', () => {
    expect(chooseImage({ requested: 'node:20', baseTag: base, fullReady: false, running: null })).toEqual({ image: 'node:20', note: null });
  });
});

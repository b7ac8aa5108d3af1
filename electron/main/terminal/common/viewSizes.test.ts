import { describe, expect, it } from 'vitest';
import { ViewSizes } from './viewSizes.js';

describe('ViewSizes', () => {
  it('takes the smallest width and height of the views, and grows back when the small one goes', () => {
    const s = new ViewSizes();
    expect(s.set('wide', { cols: 200, rows: 50 })).toEqual({ cols: 200, rows: 50 });
    expect(s.set('narrow', { cols: 80, rows: 60 })).toEqual({ cols: 80, rows: 50 });
    // The wide view resizing within what the narrow one allows changes nothing.
    expect(s.set('wide', { cols: 180, rows: 50 })).toBeNull();
    expect(s.remove('narrow')).toEqual({ cols: 180, rows: 50 });
    expect(s.remove('narrow')).toBeNull();
  });

  it('keeps its last size when the last view goes (nobody to size it for)', () => {
    const s = new ViewSizes();
    s.set('a', { cols: 100, rows: 30 });
    expect(s.remove('a')).toBeNull();
    expect(s.set('b', { cols: 100, rows: 30 })).toBeNull();
    expect(s.set('b', { cols: 90, rows: 30 })).toEqual({ cols: 90, rows: 30 });
  });
});

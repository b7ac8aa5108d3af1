import { describe, expect, it } from 'vitest';
import { attemptFamily, attemptRoot } from './attempts.js';

const c = (id: string, attemptOf: string | null = null) => ({ id, attemptOf });

describe('attemptFamily', () => {
  const chats = [c('a'), c('b', 'a'), c('x'), c('y', 'x'), c('c', 'a')];

  it('is the root and its attempts, whichever member asks, the asker first', () => {
    expect(attemptFamily(chats, chats[0]!).map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect(attemptFamily(chats, chats[4]!).map((x) => x.id)).toEqual(['c', 'a', 'b']);
  });

  it('leaves out chats of another family and chats that are no attempt', () => {
    expect(attemptFamily([...chats, c('z')], c('z')).map((x) => x.id)).toEqual(['z']);
    expect(attemptFamily(chats, chats[2]!).map((x) => x.id)).toEqual(['x', 'y']);
  });

  it('holds together after the root is gone', () => {
    const left = chats.filter((x) => x.id !== 'a');
    expect(attemptFamily(left, left[0]!).map((x) => x.id)).toEqual(['b', 'c']);
    expect(attemptRoot(left[0]!)).toBe('a');
  });
});

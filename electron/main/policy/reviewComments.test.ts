import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anchorComment, reviewMessage } from './reviewComments.js';

describe('review comments', () => {
  it('stays on its lines, follows them when they move once, and is outdated when they change', () => {
    const lines = ['a', 'b', 'c', 'd'];
    expect(anchorComment(['b', 'c'], 2, lines)).toEqual({ startLine: 2, outdated: false });
    expect(anchorComment(['b', 'c'], 2, ['x', 'y', ...lines])).toEqual({ startLine: 4, outdated: false });
    expect(anchorComment(['b', 'c'], 2, ['a', 'B', 'c'])).toEqual({ startLine: 2, outdated: true });
    expect(anchorComment(['b'], 5, ['b', 'x', 'b'])).toEqual({ startLine: 5, outdated: true });
    expect(anchorComment(['b'], 2, null)).toEqual({ startLine: 2, outdated: true });
  });

  it('lines inserted above a unique quote never make it outdated, and it lands on the quote', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 8 }), fc.array(fc.constantFrom('x', 'y'), { maxLength: 5 }), (above, inserted) => {
        const quote = ['QUOTED one', 'QUOTED two'];
        
        const after = [...inserted, ...above, ...quote, 'tail'];
        const a = anchorComment(quote, above.length + 1, after);
        expect(a.outdated).toBe(false);
        expect(after.slice(a.startLine - 1, a.startLine + 1)).toEqual(quote);
      }),
    );
  });

  it('sends file, lines, the quoted lines and the words, fenced so a quote cannot close its fence', () => {
    const text = reviewMessage([
      { folder: '/workspace/app', path: 'src/a.ts', side: 'new', startLine: 3, endLine: 4, quote: ['const a = 1;', '```'], body: 'Name this better.' },
      { folder: '/workspace/app', path: 'b.txt', side: 'old', startLine: 7, endLine: 7, quote: ['gone'], body: 'Keep this line.' },
    ]);
    expect(text).toContain('(2 comments)');
    expect(text).toContain('1. /workspace/app/src/a.ts, lines 3-4:\n````\nconst a = 1;\n```\n````\nName this better.');
    expect(text).toContain('2. /workspace/app/b.txt, line 7 (lines you removed):\n```\ngone\n```\nKeep this line.');
  });
});

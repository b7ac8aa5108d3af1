import { describe, expect, it } from 'vitest';
import { afterTyping, TYPED_LINE_CHARS } from './typedLine.js';

describe('the line typed and not yet entered', () => {
  it('grows with each keystroke and empties on Enter', () => {
    let line = '';
    for (const key of ['n', 'p', 'm', ' ', 't']) line = afterTyping(line, key);
    expect(line).toBe('npm t');
    expect(afterTyping(line, '\r')).toBe('');
  });

  it('keeps what follows the last Enter of a chunk', () => {
    expect(afterTyping('ls', ' -l\rgit st')).toBe('git st');
  });

  it('is emptied by Ctrl-C, Ctrl-D and Ctrl-U', () => {
    for (const key of ['\x03', '\x04', '\x15']) expect(afterTyping('rm -rf bu', key)).toBe('');
  });

  it('keeps editing keys as typed, so the same keys rebuild the line', () => {
    expect(afterTyping('gti', '\x7f\x7fit')).toBe('gti\x7f\x7fit');
  });

  it('gives up on a paste longer than a line is worth keeping', () => {
    expect(afterTyping('', 'x'.repeat(TYPED_LINE_CHARS + 1))).toBe('');
  });
});

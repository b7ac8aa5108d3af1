import { describe, expect, it } from 'vitest';
import { isAutomaticTitle, nextChatNumber, titleFromMessage } from './chatTitle.js';

describe('chat titles', () => {
  it('takes a title from the first line with words of the first message, cut at a word', () => {
    expect(titleFromMessage('  \n# Fix the   failing build\nand more')).toBe('Fix the failing build');
    expect(titleFromMessage('```\n\n')).toBeNull();
    const long = titleFromMessage('Please look at every file in the repository and tell me which ones are no longer used');
    expect(long).toBe('Please look at every file in the repository and tell me…');
  });

  it('replaces only the titles Berth made, and never gives a number twice', () => {
    expect(isAutomaticTitle('Chat 12')).toBe(true);
    expect(isAutomaticTitle('New chat')).toBe(true);
    expect(isAutomaticTitle('Chat 12 notes')).toBe(false);
    // "Chat 3" was deleted: 3 was given, so the next is 4 even though only "Chat 1" is left.
    expect(nextChatNumber(3, ['Chat 1', 'Docs'])).toBe(4);
    expect(nextChatNumber(0, ['Chat 7'])).toBe(8);
  });
});

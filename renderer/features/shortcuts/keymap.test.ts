import { describe, expect, it } from 'vitest';
import { matchShortcut, type KeyLike } from './keymap';

const key = (k: Partial<KeyLike>): KeyLike => ({ key: '', code: '', ctrlKey: true, shiftKey: false, altKey: false, metaKey: false, ...k });

describe('matchShortcut', () => {
  it('knows the app shortcuts by physical key or character', () => {
    expect(matchShortcut(key({ shiftKey: true, key: 'N', code: 'KeyN' }))).toBe('newChat');
    expect(matchShortcut(key({ shiftKey: true, key: '}', code: 'BracketRight' }))).toBe('nextChat');
    expect(matchShortcut(key({ shiftKey: true, key: '{', code: 'BracketLeft' }))).toBe('previousChat');
    expect(matchShortcut(key({ shiftKey: true, key: ']', code: '' }))).toBe('nextChat');
    expect(matchShortcut(key({ key: '`', code: 'Backquote' }))).toBe('focusTerminal');
    expect(matchShortcut(key({ key: '~', code: 'Backquote', shiftKey: true }))).toBe('focusMessage');
    expect(matchShortcut(key({ shiftKey: true, key: 'T', code: 'KeyT' }))).toBe('newTerminal');
    expect(matchShortcut(key({ shiftKey: true, key: 'F', code: 'KeyF' }))).toBe('findInTerminal');
  });

  it('leaves everything else to the terminal', () => {
    expect(matchShortcut(key({ key: 'n', code: 'KeyN' }))).toBeNull(); // Ctrl+N without Shift
    expect(matchShortcut(key({ key: 'c', code: 'KeyC' }))).toBeNull(); // Ctrl+C
    expect(matchShortcut(key({ ctrlKey: false, shiftKey: true, key: 'N', code: 'KeyN' }))).toBeNull();
    expect(matchShortcut(key({ altKey: true, shiftKey: true, key: 'N', code: 'KeyN' }))).toBeNull();
  });
});

describe('browser-safe alternatives', () => {
  it('Alt+Shift+N and Alt+Shift+T, which browsers do not keep for themselves', () => {
    expect(matchShortcut(key({ key: 'N', code: 'KeyN', ctrlKey: false, altKey: true, shiftKey: true }))).toBe('newChat');
    expect(matchShortcut(key({ key: 'T', code: 'KeyT', ctrlKey: false, altKey: true, shiftKey: true }))).toBe('newTerminal');
    expect(matchShortcut(key({ key: 'N', code: 'KeyN', ctrlKey: false, altKey: true }))).toBeNull();
  });
});

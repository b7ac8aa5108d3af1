/** Keyboard shortcuts: one table for the handler, the terminal (which must not eat them) and the help. */

export type ShortcutId = 'newChat' | 'nextChat' | 'previousChat' | 'focusTerminal' | 'focusMessage' | 'newTerminal' | 'findInTerminal' | 'allowOnce' | 'deny';

/** Shown on the approval buttons too. */
export const APPROVAL_KEYS = { allowOnce: 'Alt+Shift+A', deny: 'Alt+Shift+D' } as const;

export interface Shortcut {
  id: ShortcutId;
  keys: string;
  description: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { id: 'newChat', keys: 'Ctrl+Shift+N (or Alt+Shift+N in a browser)', description: 'New chat' },
  { id: 'nextChat', keys: 'Ctrl+Shift+]', description: 'Next chat' },
  { id: 'previousChat', keys: 'Ctrl+Shift+[', description: 'Previous chat' },
  { id: 'focusTerminal', keys: 'Ctrl+`', description: 'Focus the terminal' },
  // The terminal keeps Tab, Shift+Tab and Esc for the shell (as VS Code's does): this key leaves it.
  { id: 'focusMessage', keys: 'Ctrl+Shift+`', description: 'Leave the terminal for the conversation (message box)' },
  { id: 'newTerminal', keys: 'Ctrl+Shift+T (or Alt+Shift+T in a browser)', description: 'New terminal' },
  { id: 'findInTerminal', keys: 'Ctrl+Shift+F', description: 'Find in the terminal' },
  // Alt+Shift in the desktop app too: the same keys wherever the user meets a prompt.
  { id: 'allowOnce', keys: APPROVAL_KEYS.allowOnce, description: "Allow the agent's command waiting for approval, once" },
  { id: 'deny', keys: APPROVAL_KEYS.deny, description: "Deny the agent's command waiting for approval" },
];

export type KeyLike = Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'shiftKey' | 'altKey' | 'metaKey'>;

/** Which shortcut a key press is, by physical key (code) or, failing that, by the character (key). */
export function matchShortcut(e: KeyLike): ShortcutId | null {
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  // Browsers keep Ctrl+Shift+N and Ctrl+Shift+T for themselves: Alt+Shift does the same there.
  if (e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey) {
    if (e.code === 'KeyN' || key === 'n') return 'newChat';
    if (e.code === 'KeyT' || key === 't') return 'newTerminal';
    if (e.code === 'KeyA' || key === 'a') return 'allowOnce';
    if (e.code === 'KeyD' || key === 'd') return 'deny';
    return null;
  }
  if (!e.ctrlKey || e.altKey || e.metaKey) return null;
  if (e.shiftKey) {
    if (e.code === 'Backquote' || key === '~') return 'focusMessage';
    if (e.code === 'KeyN' || key === 'n') return 'newChat';
    if (e.code === 'KeyT' || key === 't') return 'newTerminal';
    if (e.code === 'KeyF' || key === 'f') return 'findInTerminal';
    if (e.code === 'BracketRight' || key === ']' || key === '}') return 'nextChat';
    if (e.code === 'BracketLeft' || key === '[' || key === '{') return 'previousChat';
    return null;
  }
  if (e.code === 'Backquote' || key === '`') return 'focusTerminal';
  return null;
}

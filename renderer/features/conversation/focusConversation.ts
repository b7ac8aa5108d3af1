/**
 * Where the keyboard goes in a chat: the message box, or, while the agent is not set up, the
 * button that sets it up. Never the terminal, which keeps Tab and Esc for the shell (Ctrl+`
 * enters it, Ctrl+Shift+` leaves it, as in VS Code).
 */
export function focusConversation(): boolean {
  const target =
    document.querySelector<HTMLElement>('.conversation-foot textarea[aria-label="Message"]') ??
    document.querySelector<HTMLElement>('.conversation-foot .agent-setup button');
  target?.focus();
  return target !== null;
}

/**
 * Whether a chat that just opened should take the focus: not when the user is somewhere on
 * purpose (walking the chat list, filtering, a dialog), but from nowhere, the New chat button,
 * or a terminal of the chat before.
 */
export function shouldFocusOnOpen(focused: Element | null): boolean {
  if (asked) {
    asked = false;
    return true;
  }
  if (focused === null || focused === document.body) return true;
  if (focused.closest('[role="dialog"], nav, input, select, textarea:not(.xterm-helper-textarea)') !== null) return false;
  return focused.closest('.terminals, .sidebar') !== null;
}

let asked = false;

/**
 * The user asked for a new chat by its shortcut: it takes the focus wherever the focus was (the
 * profile select included, which would otherwise take what the user types next).
 */
export function focusNextOpenedChat(): void {
  asked = true;
}

/** No chat came of it (the create failed): the next chat opened decides as usual. */
export function forgetFocusRequest(): void {
  asked = false;
}

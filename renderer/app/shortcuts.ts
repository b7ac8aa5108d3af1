/** The app-wide keyboard shortcuts (features/shortcuts/shortcuts.ts has the table). */
import { useEffect } from 'react';
import type { Stores } from '../stores';
import { chatOrder, groupChats, stepChat } from '../stores/chats';
import { matchShortcut, type ShortcutId } from '../features/shortcuts';
import { getTerminal, onTerminalRegistered } from '../features/terminals';
import { focusConversation, focusNextOpenedChat, forgetFocusRequest } from '../features/conversation';

/** The terminal tab shown for the selected chat. */
export function activeTerminalId(stores: Stores): string | null {
  const chatId = stores.chats.getState().selectedId;
  return chatId === null ? null : (stores.terminals.getState().active[chatId] ?? null);
}

/** The xterm of that tab, once it is on screen. */
function shownTerminal(stores: Stores) {
  const terminalId = activeTerminalId(stores);
  return terminalId === null ? undefined : getTerminal(terminalId);
}

export function runShortcut(stores: Stores, id: ShortcutId): void {
  const chats = stores.chats.getState();
  switch (id) {
    case 'newChat':
      focusNextOpenedChat();
      void chats.create().then((chat) => {
        if (chat === null) forgetFocusRequest();
      });
      return;
    case 'nextChat':
    case 'previousChat': {
      const profiles = stores.profiles.getState().profiles.map((p) => p.name);
      const order = chatOrder(groupChats(chats.chats, profiles, chats.filter));
      const next = order.length === 0 ? null : stepChat(order, chats.selectedId, id === 'nextChat' ? 1 : -1);
      if (next !== null) chats.select(next);
      return;
    }
    case 'focusTerminal': {
      const term = shownTerminal(stores);
      if (term) term.focus();
      else if (chats.selectedId !== null) focusTerminalOnceOpen(stores, chats.selectedId);
      return;
    }
    case 'focusMessage':
      focusConversation();
      return;
    case 'newTerminal':
      if (chats.selectedId !== null) void stores.terminals.getState().open(chats.selectedId);
      return;
    case 'allowOnce':
    case 'deny':
      // The shown prompt's own button: disabled while it is not armed or an answer is on its way.
      approvalButton(id)?.click();
      return;
    case 'findInTerminal':
      return; // the terminal with the focus handles it
  }
}

/** The first prompt's button for that answer, if an approval is shown. */
function approvalButton(id: 'allowOnce' | 'deny'): HTMLButtonElement | null {
  return document.querySelector<HTMLButtonElement>(`.approvals [data-answer="${id === 'allowOnce' ? 'once' : 'deny'}"]`);
}

let pendingFocus: (() => void) | null = null;

/**
 * Ctrl+` while the chat's terminal is still opening (a chat just made): the focus goes to the
 * terminal as soon as it is on screen, so what the user types next reaches the shell. Dropped if
 * the user moves on first (another chat, the focus put somewhere else) or after a minute.
 */
function focusTerminalOnceOpen(stores: Stores, chatId: string): void {
  pendingFocus?.();
  const focusedAt = document.activeElement;
  const tryNow = () => {
    if (stores.chats.getState().selectedId !== chatId || document.activeElement !== focusedAt) return stop();
    const term = shownTerminal(stores);
    if (!term) return;
    stop();
    term.focus();
  };
  const offs = [onTerminalRegistered(tryNow), stores.chats.subscribe(tryNow), stores.terminals.subscribe(tryNow)];
  const timer = setTimeout(stop, 60_000);
  function stop(): void {
    for (const off of offs) off();
    clearTimeout(timer);
    if (pendingFocus === stop) pendingFocus = null;
  }
  pendingFocus = stop;
}

export function useGlobalShortcuts(stores: Stores): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const id = matchShortcut(event);
      if (id === null || id === 'findInTerminal') return;
      // Without a prompt on screen these keys are the shell's or the page's, as ever.
      if ((id === 'allowOnce' || id === 'deny') && approvalButton(id) === null) return;
      // A modal dialog has the keyboard to itself.
      if (document.querySelector('[role="dialog"][aria-modal="true"]')) return;
      event.preventDefault();
      event.stopPropagation();
      if (event.repeat && (id === 'newChat' || id === 'newTerminal')) return;
      runShortcut(stores, id);
    };
    // Capture: before xterm (which would send the keys to the shell) sees them.
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [stores]);
}

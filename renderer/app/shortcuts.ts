/** The app-wide keyboard shortcuts (features/shortcuts/shortcuts.ts has the table). */
import { useEffect } from 'react';
import type { Stores } from '../stores';
import { chatOrder, groupChats, stepChat } from '../stores/chats';
import { matchShortcut, type ShortcutId } from '../features/shortcuts/shortcuts';
import { getTerminal } from '../features/terminals/registry';
import { focusConversation } from '../features/conversation/focusConversation';

/** The terminal tab shown for the selected chat. */
export function activeTerminalId(stores: Stores): string | null {
  const chatId = stores.chats.getState().selectedId;
  return chatId === null ? null : (stores.terminals.getState().active[chatId] ?? null);
}

export function runShortcut(stores: Stores, id: ShortcutId): void {
  const chats = stores.chats.getState();
  switch (id) {
    case 'newChat':
      void chats.create();
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
      const terminalId = activeTerminalId(stores);
      if (terminalId !== null) getTerminal(terminalId)?.focus();
      return;
    }
    case 'focusMessage':
      focusConversation();
      return;
    case 'newTerminal':
      if (chats.selectedId !== null) void stores.terminals.getState().open(chats.selectedId);
      return;
    case 'findInTerminal':
      return; // the terminal with the focus handles it
  }
}


export function useGlobalShortcuts(stores: Stores): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const id = matchShortcut(event);
      if (id === null || id === 'findInTerminal') return;
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

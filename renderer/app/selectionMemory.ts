/** The open chat, remembered in the page's localStorage so a reload opens it again. */
import type { SelectionMemory } from '../stores/chats';

export const SELECTED_CHAT_KEY = 'berth.selectedChat';

export function localSelectionMemory(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>): SelectionMemory {
  return {
    get: () => {
      try {
        return storage.getItem(SELECTED_CHAT_KEY);
      } catch {
        return null; // storage refused (private mode): start at the first chat
      }
    },
    set: (chatId) => {
      try {
        if (chatId === null) storage.removeItem(SELECTED_CHAT_KEY);
        else storage.setItem(SELECTED_CHAT_KEY, chatId);
      } catch {
        // Not remembered: the next load opens the first chat.
      }
    },
  };
}

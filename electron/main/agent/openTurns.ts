/** Turns that were running when Berth stopped: noted in the store, closed at the next start. */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../base/clock.js';
import type { Store } from '../store/repositories.js';

/** The settings key listing chats whose turn is running (see closeInterruptedTurns). */
const OPEN_TURNS_KEY = 'agent.open_turns';
const INTERRUPTED_CALL = 'Interrupted: Berth stopped before this finished.';
const INTERRUPTED_TURN = 'This turn was interrupted: Berth stopped while it was running.\nSend your message again to continue.';

/**
 * Turns still open in the store when Berth starts were cut off (Berth was killed or the
 * computer went down): their unfinished tool calls end as cancelled, and the chat says so.
 */
export function closeInterruptedTurns(store: Store, clock: Clock): void {
  for (const chatId of openTurns(store)) {
    if (!store.chats.get(chatId)) continue;
    store.transaction(() => {
      for (const { message } of store.agentMessages.forChat(chatId)) {
        const cut = message.toolCalls.filter((c) => c.status === 'running' || c.status === 'awaiting_approval');
        if (cut.length === 0) continue;
        for (const c of cut) Object.assign(c, { status: 'cancelled', output: INTERRUPTED_CALL });
        store.agentMessages.save(message);
      }
      store.agentMessages.save({
        id: randomUUID(), chatId, taskId: null, parentCallId: null, role: 'error', content: INTERRUPTED_TURN, toolCalls: [], done: true, createdAt: clock.now(),
      });
    });
  }
  store.settings.set(OPEN_TURNS_KEY, '[]');
}

function openTurns(store: Store): string[] {
  try {
    const ids: unknown = JSON.parse(store.settings.get(OPEN_TURNS_KEY) ?? '[]');
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** Written before a turn starts and after it ends, so a turn cut off by a crash is known at the next start. */
export function markOpen(store: Store, chatId: string, open: boolean): void {
  const ids = new Set(openTurns(store));
  if (open) ids.add(chatId);
  else ids.delete(chatId);
  store.settings.set(OPEN_TURNS_KEY, JSON.stringify([...ids]));
}

/**
 * A notice about the chat's sandbox being recreated "the next time": shown until that time came,
 * i.e. until the chat runs in a container other than the one it ran in when the change was asked
 * (a notice that describes the future goes away when the future arrives).
 */
import { useCallback, useRef, useState } from 'react';
import { useSandbox, useServices } from '../../services/context';

export interface FutureNotice {
  /** The notice to show now, or null (none, dismissed, or it came true). */
  text: string | null;
  /** Before the change is asked: remembers the container it runs in now. */
  arm(): void;
  /** Main's answer: its notice (null clears). */
  show(text: string | null): void;
}

export function useUntilRecreated(chatId: string): FutureNotice {
  const { stores } = useServices();
  const containerId = useSandbox((s) => s.views[chatId]?.status?.containerId ?? null);
  // The header outlives a chat switch: a notice is its chat's alone.
  const [notice, setNotice] = useState<{ chatId: string; text: string; from: string | null } | null>(null);
  const from = useRef<string | null>(null);
  const arm = useCallback(() => {
    from.current = stores.sandbox.getState().views[chatId]?.status?.containerId ?? null;
  }, [stores, chatId]);
  const show = useCallback((text: string | null) => setNotice(text === null ? null : { chatId, text, from: from.current }), [chatId]);
  const cameTrue = notice !== null && containerId !== null && containerId !== notice.from;
  return { text: notice === null || notice.chatId !== chatId || cameTrue ? null : notice.text, arm, show };
}

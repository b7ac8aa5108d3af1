/** The count of changed files beside a chat in the sidebar (Review-mode copies only), live. */
import type { ChatView } from '../../../shared/contract';
import { useChangedCount } from './useChangedCount';

export function ChangedCountBadge({ chat }: { chat: ChatView }) {
  const count = useChangedCount(chat);
  if (count === null || count === 0) return null;
  const text = `${count.toLocaleString()} changed file${count === 1 ? '' : 's'}`;
  return (
    <span className="changes-count" title={text} aria-label={text} role="status">
      {count > 999 ? '999+' : count.toLocaleString()}
    </span>
  );
}

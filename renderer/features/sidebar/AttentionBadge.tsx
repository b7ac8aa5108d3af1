/** Beside a chat in the sidebar: it waits for the user's approval, or its agent finished while the user was elsewhere. */
import { useAttention } from '../../app/context';
import { attentionOf } from '../../stores/attention';

const WORDS = {
  approval: { short: 'Approval', long: 'Waiting for your approval' },
  finished: { short: 'Done', long: 'The agent finished' },
} as const;

export function AttentionBadge({ chatId }: { chatId: string }) {
  const kind = useAttention((s) => attentionOf(s, chatId));
  if (kind === null) return null;
  const words = WORDS[kind];
  return (
    <span className={`attention attention-${kind}`} role="status" aria-label={words.long} title={words.long}>
      {words.short}
    </span>
  );
}

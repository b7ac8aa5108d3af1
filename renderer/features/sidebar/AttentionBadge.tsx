/** Beside a chat in the sidebar: it waits for the user's approval, or its agent finished while the user was elsewhere. */
import { useAttention } from '../../services/context';
import { attentionOf, pressureText } from '../../stores/attention';

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

/** The chat's sandbox is near its memory or process limit: a mark, named for screen readers. */
export function PressureMark({ chatId }: { chatId: string }) {
  const text = useAttention((s) => pressureText(s, chatId));
  if (text === null) return null;
  return (
    <span className="attention attention-pressure" role="status" aria-label={text} title={text}>
      Near limit
    </span>
  );
}

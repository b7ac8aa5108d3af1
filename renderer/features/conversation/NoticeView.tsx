/**
 * Berth's own notices in a conversation: the repository's AGENTS.md in use, and earlier turns
 * summarised to fit the model's context window (the summary the model now works from, viewable).
 */
import type { AgentMessage, AgentNotice } from '../../../shared/contract';
import { MarkdownText } from './Markdown';

export function NoticeView({ message, notice }: { message: AgentMessage; notice: AgentNotice }) {
  if (notice.kind === 'instructions') {
    return (
      <aside className="message-notice" role="note" aria-label="Instructions in use">
        <p>{message.content}</p>
      </aside>
    );
  }
  return (
    <aside className="message-notice" role="note" aria-label="Earlier turns summarised">
      <details>
        <summary>
          Earlier turns summarised ({notice.messages} {notice.messages === 1 ? 'message' : 'messages'}): the model now works from this summary
        </summary>
        <MarkdownText text={notice.summary} />
      </details>
    </aside>
  );
}

/** An answer's tokens as the provider reported them. */
export function UsageLine({ usage }: { usage: NonNullable<AgentMessage['usage']> }) {
  return (
    <p className="message-usage muted" aria-label="Tokens">
      {usage.input.toLocaleString('en-US')} tokens in · {usage.output.toLocaleString('en-US')} out
    </p>
  );
}

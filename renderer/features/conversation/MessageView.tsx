/**
 * One message: the user's text, the assistant's markdown and tool calls, or an error. A
 * delegate_task call's card holds its subagent's messages, drawn the same way one level in.
 */
import { memo } from 'react';
import type { AgentMessage } from '../../../shared/contract';
import { TurnChanges } from '../changes';
import { ForkActions } from '../compare';
import { MarkdownText, useThrottledText } from './Markdown';
import { NoticeView, UsageLine } from './NoticeView';
import { ToolCallCard } from './ToolCallCard';
import { sameSubtree, subagentOf, type ConversationTree } from './tree';

export interface MessageViewProps {
  message: AgentMessage;
  tree: ConversationTree;
  /** Its place in the feed (1-based) and the feed's length; none when nested. */
  posinset?: number;
  setsize?: number;
  /** When this message ends a turn: the id of the user's message that started it. */
  turnOf?: string | null;
}

function label(message: AgentMessage): string {
  if (message.role === 'error') return 'Error';
  if (message.taskId !== null) return message.role === 'user' ? 'Subagent task' : 'Subagent';
  return message.role === 'user' ? 'You' : 'Assistant';
}

export const MessageView = memo(function MessageView({ message, tree, posinset, setsize, turnOf = null }: MessageViewProps) {
  const name = label(message);
  const streaming = !message.done;
  const text = useThrottledText(message.content, streaming);
  if (message.notice) return <NoticeView message={message} notice={message.notice} />;
  return (
    <article
      className={`message message-${message.role}${message.taskId !== null ? ' message-sub' : ''}`}
      aria-label={name}
      aria-busy={streaming || undefined}
      aria-posinset={posinset}
      aria-setsize={setsize}
    >
      <div className="message-who" aria-hidden="true">
        {name}
      </div>
      {message.role === 'assistant' ? (
        text !== '' && <MarkdownText text={text} />
      ) : (
        <p className="message-text">{message.content}</p>
      )}
      {message.toolCalls.map((call) => {
        const subagent = subagentOf(tree, message, call);
        return (
          <ToolCallCard key={call.id} call={call} messageId={message.id}>
            {subagent.length > 0 && (
              <div role="group" aria-label="Subagent" className="subagent">
                <div className="subagent-label" aria-hidden="true">
                  Subagent
                </div>
                {subagent.map((m) => (
                  <MessageView key={m.id} message={m} tree={tree} />
                ))}
              </div>
            )}
          </ToolCallCard>
        );
      })}
      {message.usage && message.done && <UsageLine usage={message.usage} />}
      {streaming && <span className="typing" aria-hidden="true" />}
      {turnOf !== null && <TurnChanges chatId={message.chatId} turnMessageId={turnOf} />}
      {turnOf !== null && message.role !== 'user' && <ForkActions chatId={message.chatId} turnMessageId={turnOf} />}
    </article>
  );
}, sameView);

/**
 * The list builds a new tree on every change (a streamed token included), so the tree itself is
 * not compared: only what this message draws from it, its subagents' messages.
 */
function sameView(prev: MessageViewProps, next: MessageViewProps): boolean {
  return (
    prev.message === next.message &&
    prev.posinset === next.posinset &&
    prev.setsize === next.setsize &&
    prev.turnOf === next.turnOf &&
    sameSubtree(prev.tree, next.tree, next.message)
  );
}

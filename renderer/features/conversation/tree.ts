/** How a conversation is laid out: top-level rows, and subagents' messages under their call. */
import type { AgentMessage, AgentToolCall, ToolCallStatus } from '../../../shared/contract';

export interface ConversationTree {
  /** The rows of the list: the chat's own messages, and any subagent message whose call is unknown. */
  top: AgentMessage[];
  /** A delegate_task call's subagent messages, oldest first, by the subagent's task id. */
  children: ReadonlyMap<string, AgentMessage[]>;
}

const NONE: AgentMessage[] = [];

/**
 * Groups by the subagent's task id (made unique by main), never by tool-call ids: providers
 * number calls per reply, so a call id can repeat, even inside the subagent's own messages.
 */
export function buildTree(messages: readonly AgentMessage[]): ConversationTree {
  const subtasks = new Set<string>();
  for (const m of messages) for (const call of m.toolCalls) if (call.subtaskId !== null && call.subtaskId !== m.taskId) subtasks.add(call.subtaskId);
  const top: AgentMessage[] = [];
  const children = new Map<string, AgentMessage[]>();
  for (const m of messages) {
    // A subagent whose call has not arrived (or was lost) still shows, at the top level.
    if (m.taskId === null || !subtasks.has(m.taskId)) {
      top.push(m);
      continue;
    }
    let list = children.get(m.taskId);
    if (!list) children.set(m.taskId, (list = []));
    list.push(m);
  }
  return { top, children };
}

export function childrenOf(tree: ConversationTree, subtaskId: string | null): AgentMessage[] {
  return subtaskId === null ? NONE : (tree.children.get(subtaskId) ?? NONE);
}

/**
 * The subagent messages drawn under one of `message`'s calls. A subagent's own calls never hold
 * itself: nesting follows task ids, which only go deeper.
 */
export function subagentOf(tree: ConversationTree, message: AgentMessage, call: AgentToolCall): AgentMessage[] {
  return call.subtaskId === message.taskId ? NONE : childrenOf(tree, call.subtaskId);
}

/**
 * Whether `message` draws the same subagent messages (the same objects) under its calls in both
 * trees, at every depth: if so, its view has nothing new to show from the tree.
 */
export function sameSubtree(prev: ConversationTree, next: ConversationTree, message: AgentMessage): boolean {
  if (prev === next) return true;
  for (const call of message.toolCalls) {
    const before = subagentOf(prev, message, call);
    const after = subagentOf(next, message, call);
    if (before.length !== after.length) return false;
    for (let i = 0; i < before.length; i++) {
      const m = before[i] as AgentMessage;
      if (m !== after[i] || !sameSubtree(prev, next, m)) return false;
    }
  }
  return true;
}

export const STATUS_LABELS: Record<ToolCallStatus, string> = {
  awaiting_approval: 'awaiting approval',
  running: 'running',
  done: 'done',
  failed: 'failed',
  denied: 'denied',
  cancelled: 'cancelled',
};

const NAME_MAX = 100;

/** The card's accessible name, "terminal: ls -la": one line, cut short for long commands. */
export function callName(call: Pick<AgentToolCall, 'name' | 'command'>): string {
  const command = (call.command ?? '').replace(/\s+/g, ' ').trim();
  if (command === '') return call.name;
  const name = `${call.name}: ${command}`;
  return name.length > NAME_MAX ? `${name.slice(0, NAME_MAX - 1)}…` : name;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

/** What the model is sent: the system prompt, and a task's stored messages in the provider's shape. Pure. */
import type { AgentNotice } from '../../../shared/contract.js';
import type { AgentFolder } from '../policy/agentPaths.js';
import { cutResult } from '../policy/compaction.js';
import type { StoredAgentMessage } from '../store/agentRepositories.js';
import type { ChatMessage } from './provider/openaiClient.js';

export function systemPrompt(folders: readonly AgentFolder[], isSubagent: boolean, instructions = ''): string {
  const where = folders.length === 0
    ? 'No host folder is attached to this chat yet; if the task needs the user’s files, ask them to attach a folder.'
    : `The user's attached folders, inside the sandbox: ${folders.map((f) => `${f.containerPath} (${f.readOnly ? 'read-only' : 'read-write'})`).join(', ')}.`;
  return [
    isSubagent
      ? 'You are a subagent in Berth. Do the task you were given, then answer with a short report of what you did and found.'
      : 'You are a coding agent in Berth. Help the user with their files and commands.',
    "Every tool acts inside this chat's sandbox: a Linux container, running as a non-root user, that cannot see the rest of the user's computer.",
    where,
    'Use read_file, edit_file (exact replacements), write_file (new or whole files), list_dir, find_files and search for files in the attached folders, and terminal for commands. Keep answers short; use Markdown.',
    ...(instructions === '' ? [] : [instructions]),
  ].join('\n');
}

/** A stopped turn can leave a call without a result; the model still needs one per call. */
const NO_RESULT = 'No result: the turn was stopped before this call finished.';

/** Tool results older than the newest this many are cut short: long chats stay within a model's context. */
export const FULL_RESULTS_KEPT = 24;
export const OLD_RESULT_CHARS = 1_000;

function shortened(result: string): string {
  return result.length <= OLD_RESULT_CHARS ? result : `${result.slice(0, OLD_RESULT_CHARS)}\n[… cut: an older result; run the tool again to see it whole]`;
}

type Summary = Extract<AgentNotice, { kind: 'summary' }>;

/** The chat's latest summary of earlier turns, and the messages after the ones it replaces. */
export function sinceSummary(stored: readonly StoredAgentMessage[]): { summary: Summary | null; rest: StoredAgentMessage[] } {
  let summary: Summary | null = null;
  for (const s of stored) if (s.message.notice?.kind === 'summary') summary = s.message.notice;
  if (summary === null) return { summary, rest: stored.filter((s) => s.message.notice === undefined) };
  const through = stored.findIndex((s) => s.message.id === (summary as Summary).through);
  return { summary, rest: stored.slice(through + 1).filter((s) => s.message.notice === undefined) };
}

export const SUMMARY_HEADING = 'Summary of the earlier conversation (its older turns were summarised to fit the context window):';
const CONTINUE = 'Continue from where the summary above leaves off.';

/**
 * The provider's messages for a task. For the chat's own agent, a summary of earlier turns
 * replaces the messages it covers (it goes in the system message, so no two user messages
 * meet); `resultLimit` cuts each tool result to what the window can take.
 */
export function providerMessages(system: string, all: readonly StoredAgentMessage[], taskId: string | null, resultLimit = Infinity): ChatMessage[] {
  const { summary, rest } = taskId === null ? sinceSummary(all) : { summary: null, rest: all.filter((s) => s.message.notice === undefined) };
  const stored = rest.filter((s) => s.message.taskId === taskId);
  const out: ChatMessage[] = [{ role: 'system', content: summary === null ? system : `${system}\n\n${SUMMARY_HEADING}\n${summary.summary}` }];
  if (summary !== null && stored[0]?.message.role !== 'user') out.push({ role: 'user', content: CONTINUE });
  const total = stored.reduce((n, s) => n + s.message.toolCalls.length, 0);
  let seen = 0;
  for (const { message: m, results } of stored) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    if (m.role !== 'assistant') continue;
    if (m.toolCalls.length === 0) {
      if (m.content !== '') out.push({ role: 'assistant', content: m.content });
      continue;
    }
    out.push({
      role: 'assistant',
      content: m.content === '' ? null : m.content,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
    });
    for (const c of m.toolCalls) {
      const result = results[c.id] ?? NO_RESULT;
      out.push({ role: 'tool', tool_call_id: c.id, content: total - seen++ > FULL_RESULTS_KEPT ? shortened(result) : cutResult(result, resultLimit) });
    }
  }
  return out;
}

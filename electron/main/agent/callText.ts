/** How a tool call is described on its card and in its approval. Pure. */
import { AGENT_TOOL_NAMES, type AgentToolName } from '../../../shared/contract.js';
import { toolArgs } from './toolSpecs.js';
import type { PreparedEdit } from './sandboxEdit.js';
import type { PreparedWrite } from './sandboxTools.js';

/** What a write would put in the file, as the approval shows it. */
export const APPROVAL_PREVIEW_CHARS = 20_000;
export function preview(bytes: Buffer): string {
  return previewText(bytes.toString('utf8'), bytes.length);
}
export function previewText(text: string, bytes: number): string {
  return text.length <= APPROVAL_PREVIEW_CHARS ? text : `${text.slice(0, APPROVAL_PREVIEW_CHARS)}\n… (${bytes} bytes in all; the rest is not shown)`;
}

export function isEdit(p: PreparedWrite | PreparedEdit): p is PreparedEdit {
  return 'readHash' in p;
}

export function describeCall(name: AgentToolName, args: Record<string, unknown>): string {
  switch (name) {
    case 'terminal': return String(args.command);
    case 'read_file': return `read ${String(args.path)}`;
    case 'write_file': return `write ${String(args.path)}`;
    case 'edit_file': return `edit ${String(args.path)}`;
    case 'search': return `search ${JSON.stringify(args.pattern)}`;
    case 'find_files': return `find ${String(args.pattern)}`;
    case 'list_dir': return `list ${String(args.path ?? '.')}`;
    case 'delegate_task': return String(args.title ?? args.task).slice(0, 200);
  }
}

/**
 * The command and folder a call's card shows, when its arguments are valid (null otherwise: the
 * call then says what is wrong with them). Known when the model's answer arrives, so the answer
 * is saved with them once, not saved again just before the call runs.
 */
export function plannedCall(name: string, argumentsJson: string): { command: string; cwd: string | null } | null {
  if (!(AGENT_TOOL_NAMES as readonly string[]).includes(name)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(argumentsJson || '{}');
  } catch {
    return null;
  }
  const parsed = toolArgs[name as AgentToolName].safeParse(raw);
  if (!parsed.success) return null;
  const args = parsed.data as Record<string, unknown>;
  return { command: describeCall(name as AgentToolName, args), cwd: typeof args.workdir === 'string' ? args.workdir : null };
}

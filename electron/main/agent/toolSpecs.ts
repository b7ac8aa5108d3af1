/** The tools the model is offered, and the checked shape of each one's arguments. */
import { z } from 'zod';
import type { AgentToolName } from '../../../shared/contract.js';
import type { ToolSpec } from './provider/openaiClient.js';

export const MAX_TOOL_TIMEOUT_S = 30 * 60;

export const toolArgs = {
  terminal: z.object({
    command: z.string().min(1),
    workdir: z.string().min(1).optional(),
    timeout_seconds: z.number().positive().max(MAX_TOOL_TIMEOUT_S).optional(),
  }),
  read_file: z.object({ path: z.string().min(1) }),
  write_file: z.object({ path: z.string().min(1), content: z.string() }),
  list_dir: z.object({ path: z.string().min(1).optional() }),
  delegate_task: z.object({ task: z.string().min(1), title: z.string().optional() }),
} satisfies Record<AgentToolName, z.ZodType>;

export type ToolArgs<N extends AgentToolName> = z.infer<(typeof toolArgs)[N]>;

const fn = (name: AgentToolName, description: string, properties: Record<string, object>, required: string[]): ToolSpec => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
});

export function toolSpecs(canDelegate: boolean): ToolSpec[] {
  const specs = [
    fn('terminal', "Runs a shell command in this chat's sandbox (a Linux container) and returns its exit code and output.", {
      command: { type: 'string', description: 'The shell command.' },
      workdir: { type: 'string', description: 'Directory to run in, inside the sandbox (default: the last one used).' },
      timeout_seconds: { type: 'number', description: `Stop the command after this many seconds (at most ${MAX_TOOL_TIMEOUT_S}).` },
    }, ['command']),
    fn('read_file', 'Reads a text file in the attached folders.', { path: { type: 'string', description: 'Path, relative to the workspace or absolute inside it.' } }, ['path']),
    fn('write_file', 'Creates or replaces a text file in the attached folders (folders are created as needed).', {
      path: { type: 'string', description: 'Path, relative to the workspace or absolute inside it.' },
      content: { type: 'string', description: 'The whole new content of the file.' },
    }, ['path', 'content']),
    fn('list_dir', 'Lists a folder in the attached folders.', { path: { type: 'string', description: 'Folder path (default: the workspace).' } }, []),
  ];
  if (canDelegate) {
    specs.push(
      fn('delegate_task', 'Hands a self-contained task to a subagent that works in the same sandbox and folders, and returns its final answer.', {
        task: { type: 'string', description: 'What the subagent should do, with everything it needs to know.' },
        title: { type: 'string', description: 'A short title for the task.' },
      }, ['task']),
    );
  }
  return specs;
}

/** The tools the model is offered, and the checked shape of each one's arguments. */
import { z } from 'zod';
import type { AgentToolName } from '../../../shared/contract.js';
import type { ToolSpec } from './provider/openaiClient.js';

export const MAX_TOOL_TIMEOUT_S = 30 * 60;
/** Edits in one edit_file call. */
export const MAX_EDITS = 100;

export const toolArgs = {
  terminal: z.object({
    command: z.string().min(1),
    workdir: z.string().min(1).optional(),
    timeout_seconds: z.number().positive().max(MAX_TOOL_TIMEOUT_S).optional(),
  }),
  read_file: z.object({ path: z.string().min(1), offset: z.number().int().positive().optional(), limit: z.number().int().positive().optional() }),
  write_file: z.object({ path: z.string().min(1), content: z.string() }),
  edit_file: z.object({
    path: z.string().min(1),
    edits: z.array(z.object({ old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() })).min(1).max(MAX_EDITS),
  }),
  list_dir: z.object({ path: z.string().min(1).optional() }),
  search: z.object({ pattern: z.string().min(1).max(1000), path: z.string().min(1).optional(), glob: z.string().min(1).max(500).optional(), ignore_case: z.boolean().optional() }),
  find_files: z.object({ pattern: z.string().min(1).max(500), path: z.string().min(1).optional() }),
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
    fn('read_file', 'Reads a text file in the attached folders, whole or a range of its lines. A long file is cut, and the result says which lines were left out.', {
      path: { type: 'string', description: 'Path, relative to the workspace or absolute inside it.' },
      offset: { type: 'integer', description: 'The first line to read, counting from 1 (default: 1).' },
      limit: { type: 'integer', description: 'How many lines to read (default: as many as fit).' },
    }, ['path']),
    fn('write_file', 'Creates or replaces a text file in the attached folders (folders are created as needed).', {
      path: { type: 'string', description: 'Path, relative to the workspace or absolute inside it.' },
      content: { type: 'string', description: 'The whole new content of the file.' },
    }, ['path', 'content']),
    fn('edit_file', 'Changes a text file in the attached folders by replacing exact strings. Each old_string must occur exactly once (or set replace_all); the edits apply in order, and if any cannot apply, none is made.', {
      path: { type: 'string', description: 'Path, relative to the workspace or absolute inside it.' },
      edits: {
        type: 'array',
        description: 'The replacements, applied in order.',
        items: {
          type: 'object',
          properties: {
            old_string: { type: 'string', description: 'The exact text to replace, with its whitespace.' },
            new_string: { type: 'string', description: 'The text to put in its place.' },
            replace_all: { type: 'boolean', description: 'Replace every occurrence (default: false, and then old_string must be unique).' },
          },
          required: ['old_string', 'new_string'],
          additionalProperties: false,
        },
      },
    }, ['path', 'edits']),
    fn('search', 'Searches file contents in the attached folders with a regular expression (extended syntax) and returns file:line:text for each match, capped.', {
      pattern: { type: 'string', description: 'The regular expression.' },
      path: { type: 'string', description: 'Folder or file to search (default: the workspace).' },
      glob: { type: 'string', description: 'Only files whose name (or path, with a /) matches this glob, such as *.ts or src/**/*.ts.' },
      ignore_case: { type: 'boolean', description: 'Match regardless of case.' },
    }, ['pattern']),
    fn('find_files', 'Finds files in the attached folders whose name (or path, with a /) matches a glob, such as *.md or src/**/*.test.ts.', {
      pattern: { type: 'string', description: 'The glob.' },
      path: { type: 'string', description: 'Folder to look in (default: the workspace).' },
    }, ['pattern']),
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

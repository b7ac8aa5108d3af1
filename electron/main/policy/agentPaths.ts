/**
 * Where the agent's file tools may act: only inside the chat's attached folders as the
 * container sees them, and writes only in read-write ones. Pure; the tools re-check the path
 * after the container has resolved its symlinks.
 */
import path from 'node:path';
import { isSameOrInside } from './sensitivePaths.js';

export interface AgentFolder {
  /** The folder inside the container, such as /workspace or /workspace/app. */
  containerPath: string;
  readOnly: boolean;
  /** The folder on this computer, as the user knows it (for what the chat shows). */
  hostPath?: string;
}

export type AgentPathResult = { ok: true; path: string } | { ok: false; problem: string };

const MAX_PATH = 4096;

/** The folder relative paths start from: the one folder, or /workspace above several. */
export function agentBaseDir(folders: readonly AgentFolder[]): string | null {
  if (folders.length === 0) return null;
  if (folders.length === 1) return (folders[0] as AgentFolder).containerPath;
  return '/workspace';
}

export function resolveAgentPath(requested: string, folders: readonly AgentFolder[], intent: 'read' | 'write'): AgentPathResult {
  const base = agentBaseDir(folders);
  if (base === null) return { ok: false, problem: 'No folder is attached to this chat, so there are no files to work with. Ask the user to attach one.' };
  if (requested.length === 0 || requested.length > MAX_PATH) return { ok: false, problem: 'The path is empty or too long.' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(requested)) return { ok: false, problem: 'The path contains control characters.' };
  const resolved = path.posix.resolve(base, requested);
  const folder = folders
    .filter((f) => isSameOrInside(resolved, f.containerPath))
    .sort((a, b) => b.containerPath.length - a.containerPath.length)[0];
  if (!folder) {
    const list = folders.map((f) => f.containerPath).join(', ');
    return { ok: false, problem: `${resolved} is outside the attached folders (${list}). File tools only work there.` };
  }
  if (intent === 'write' && folder.readOnly) return { ok: false, problem: `${folder.containerPath} is attached read-only, so ${resolved} cannot be written.` };
  if (intent === 'write' && resolved === folder.containerPath) return { ok: false, problem: `${resolved} is a folder, not a file.` };
  return { ok: true, path: resolved };
}

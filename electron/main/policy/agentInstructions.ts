/**
 * The repository's own instructions for the agent: AGENTS.md files in the attached folders.
 * Pure: what the sandbox found is parsed here, and here it is decided what the model is told.
 *
 * A folder's own AGENTS.md (at its root) goes into the system prompt whole (capped). Nested
 * ones (a package's AGENTS.md in a monorepo) are listed there by path, and when the agent
 * reads or changes a file under one, that tool result carries the nearest one's text, once per
 * turn: the rule "nearest wins" then holds without relying on the model to go and read them, and
 * a repository with many packages does not fill the context with every package's rules.
 */
import path from 'node:path';
import { isSameOrInside } from './sensitivePaths.js';

export const INSTRUCTIONS_FILE = 'AGENTS.md';
/** What of one AGENTS.md the agent gets. Files this size are far past the usual few KiB. */
export const MAX_INSTRUCTIONS_BYTES = 32 * 1024;
/** AGENTS.md files looked for per folder, and how deep (a monorepo's packages sit 2-4 deep). */
export const MAX_INSTRUCTION_FILES = 50;
export const MAX_INSTRUCTIONS_DEPTH = 8;

export interface FoundInstructions {
  /** The folders (as the container sees them) whose own AGENTS.md was read, with its text. */
  roots: { folder: string; path: string; text: string; bytes: number }[];
  /** AGENTS.md files deeper down, by path inside the container. */
  nested: string[];
}

/** Paths printed one a line by the sandbox's find: split into root files and nested ones. */
export function classifyFound(listing: string, folders: readonly string[]): { roots: string[]; nested: string[] } {
  const roots: string[] = [];
  const nested: string[] = [];
  const seen = new Set<string>();
  for (const p of listing.split('\n')) {
    if ( !p.startsWith('/') || path.posix.basename(p) !== INSTRUCTIONS_FILE || seen.has(p)) continue;
    const dir = path.posix.dirname(p);
    if (!folders.some((f) => isSameOrInside(dir, f))) continue;
    seen.add(p);
    (folders.includes(dir) ? roots : nested).push(p);
  }
  return { roots: roots.sort(), nested: nested.sort().slice(0, MAX_INSTRUCTION_FILES) };
}

/** The text as the model gets it, with a note when it was cut. */
export function capped(text: string, bytes: number): string {
  return bytes > MAX_INSTRUCTIONS_BYTES ? `${text}\n[… cut: this ${INSTRUCTIONS_FILE} is ${bytes} bytes; read the rest with read_file]` : text;
}

/** The system prompt's part: the root files' text and the nested files' paths. Empty when there are none. */
export function instructionsPrompt(found: FoundInstructions): string {
  if (found.roots.length === 0 && found.nested.length === 0) return '';
  const parts = ["The repository's own instructions (AGENTS.md) follow. Follow them; the user's messages take precedence over them."];
  for (const r of found.roots) parts.push(`--- ${r.path} (applies to everything under ${r.folder}) ---\n${capped(r.text, r.bytes)}\n--- end of ${r.path} ---`);
  if (found.nested.length > 0) {
    parts.push(
      `Deeper AGENTS.md files apply to the files under their own folder instead of the ones above (the nearest one wins): ${found.nested.join(', ')}. ` +
        'When you read or change a file under one, its text comes with the tool result.',
    );
  }
  return parts.join('\n');
}

/** The nested AGENTS.md nearest to a file (the deepest folder that holds it), or null. */
export function nearestNested(file: string, nested: readonly string[]): string | null {
  let best: string | null = null;
  for (const p of nested) {
    const dir = path.posix.dirname(p);
    if (isSameOrInside(file, dir) && (best === null || dir.length > path.posix.dirname(best).length)) best = p;
  }
  return best;
}

/** What a tool result carries when the agent first works under a nested AGENTS.md in a turn. */
export function nestedNote(file: string, text: string, bytes: number): string {
  const dir = path.posix.dirname(file);
  return `\n\n[Instructions from ${file}, which apply to files under ${dir} (over any AGENTS.md above it):]\n${capped(text, bytes)}\n[end of ${file}]`;
}

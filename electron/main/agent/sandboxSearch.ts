/**
 * search and find_files, inside the chat's sandbox: ripgrep when the image has it, else grep
 * and find as busybox has them. Results are capped in the sandbox (head) and again here, and
 * say what was left out.
 */
import { shellQuote } from '../policy/shellProtocol.js';
import { helper, refused, type Caller, type SandboxTools, type ToolOutcome } from './sandboxTools.js';
import type { ToolArgs } from './toolSpecs.js';

export const SEARCH_MAX_MATCHES = 200;
export const FIND_MAX_FILES = 500;
/** What the sandbox sends at most: below exec's 32 KiB head + 32 KiB tail, so nothing is cut in the middle. */
export const SEARCH_MAX_BYTES = 60_000;
/** A minified file's match is one huge line: each is cut to this. */
export const MATCH_LINE_CHARS = 400;

/** Folders neither tool walks into: git's store, and installed packages (ripgrep skips them through .gitignore). */
const PRUNE = `\\( -name .git -o -name node_modules \\) -prune -o`;

/**
 * find's test for a glob: by name without a '/', else by path under the folder. find's `*`
 * already crosses '/', so `**` + '/' folds to `*` (src/**\/*.ts matches src/a.ts and src/a/b.ts).
 */
export function findGlobTest(dir: string, glob: string): string {
  if (!glob.includes('/')) return `-name ${shellQuote(glob)}`;
  const rel = glob.replace(/^\.?\/+/, '').replace(/\*\*\/+/g, '*').replace(/\*\*+/g, '*');
  return `-path ${shellQuote(`${dir.replace(/\/+$/, '')}/${rel}`)}`;
}

export function searchScript(dir: string, a: { pattern: string; glob?: string | undefined; ignore_case?: boolean | undefined }): string {
  const d = shellQuote(dir);
  const p = shellQuote(a.pattern);
  const i = a.ignore_case === true ? ' -i' : '';
  const rg = `rg -n -H --no-heading --color never${i}${a.glob ? ` --glob ${shellQuote(a.glob)}` : ''} -e ${p} -- ${d}`;
  const grep = `find ${d} ${PRUNE} -type f${a.glob ? ` ${findGlobTest(dir, a.glob)}` : ''} -print0 | xargs -0 grep -nHIE${i} -e ${p} --`;
  const cap = `head -n ${SEARCH_MAX_MATCHES + 1} | head -c ${SEARCH_MAX_BYTES}`;
  return helper(`if command -v rg >/dev/null 2>&1; then ${rg}; else ${grep}; fi 2>&1 | ${cap}`);
}

export function findScript(dir: string, glob: string): string {
  return helper(`find ${shellQuote(dir)} ${PRUNE} -type f ${findGlobTest(dir, glob)} -print 2>&1 | head -n ${FIND_MAX_FILES + 1} | head -c ${SEARCH_MAX_BYTES}`);
}

/** The lines the sandbox sent, capped, each cut short; and a note on what was left out. */
export function capLines(output: string, max: number, noun: string): { lines: string[]; note: string } {
  const all = output.split('\n').filter((l) => l !== '' && !l.includes('\u0000'));
  const byBytes = Buffer.byteLength(output) >= SEARCH_MAX_BYTES;
  // The sandbox stopped at its byte cap mid-line: that last line is partial.
  if (byBytes && !output.endsWith('\n')) all.pop();
  const lines = all.slice(0, max).map((l) => (l.length > MATCH_LINE_CHARS ? `${l.slice(0, MATCH_LINE_CHARS)} […line cut]` : l));
  const more = all.length > max || byBytes;
  const note = more ? `[${lines.length} ${noun} shown; more were left out. Narrow the pattern, path or glob to see the rest.]` : '';
  return { lines, note };
}

export async function search(tools: SandboxTools, caller: Caller, args: ToolArgs<'search'>): Promise<ToolOutcome> {
  const where = await tools.confined(caller, args.path ?? '.', 'read');
  const command = `search ${JSON.stringify(args.pattern)}${args.glob ? ` in ${args.glob}` : ''}`;
  if (typeof where !== 'string') return refused(command, where.problem);
  const r = await tools.run(caller, searchScript(where, args));
  const { lines, note } = capLines(r.output, SEARCH_MAX_MATCHES, 'matches');
  const full = `${command} under ${where}`;
  if (lines.length === 0) return { ok: true, command: full, cwd: null, exitCode: 0, output: 'No matches.', resultForModel: 'No matches.' };
  const text = [...lines, note].filter((s) => s !== '').join('\n');
  return { ok: true, command: full, cwd: null, exitCode: 0, output: text, resultForModel: text };
}

export async function findFiles(tools: SandboxTools, caller: Caller, args: ToolArgs<'find_files'>): Promise<ToolOutcome> {
  const where = await tools.confined(caller, args.path ?? '.', 'read');
  const command = `find ${args.pattern}`;
  if (typeof where !== 'string') return refused(command, where.problem);
  const r = await tools.run(caller, findScript(where, args.pattern));
  const { lines, note } = capLines(r.output, FIND_MAX_FILES, 'files');
  const full = `${command} under ${where}`;
  if (lines.length === 0) return { ok: true, command: full, cwd: null, exitCode: 0, output: 'No files match.', resultForModel: 'No files match.' };
  const text = [...lines.sort(), note].filter((s) => s !== '').join('\n');
  return { ok: true, command: full, cwd: null, exitCode: 0, output: text, resultForModel: text };
}

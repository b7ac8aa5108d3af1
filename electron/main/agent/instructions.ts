/**
 * AGENTS.md files found and read inside the chat's sandbox, as its user, through exec: never
 * on this computer, so a link in the repository leads only where the sandbox itself can read.
 * find does not follow links and lists regular files only; each read checks again that the
 * file is a regular file and not a link, and reads at most MAX_INSTRUCTIONS_BYTES.
 */
import { classifyFound, INSTRUCTIONS_FILE, MAX_INSTRUCTION_FILES, MAX_INSTRUCTIONS_BYTES, MAX_INSTRUCTIONS_DEPTH, type FoundInstructions } from '../policy/agentInstructions.js';
import { shellQuote } from '../policy/shellProtocol.js';
import { helper, type Caller, type SandboxTools } from './sandboxTools.js';

export async function findInstructions(tools: SandboxTools, caller: Caller, folders: readonly string[]): Promise<FoundInstructions> {
  const list = folders.map(shellQuote).join(' ');
  // .git and node_modules are pruned: never instructions of this repository, and the bulk of a big tree.
  const r = await tools.run(caller, helper(
    `for d in ${list}; do find "$d" -maxdepth ${MAX_INSTRUCTIONS_DEPTH} \\( -name .git -o -name node_modules \\) -prune -o -type f -name ${INSTRUCTIONS_FILE} -print 2>/dev/null | head -n ${MAX_INSTRUCTION_FILES + 1}; done; true`,
  ));
  const { roots, nested } = classifyFound(r.output, folders);
  const read = await Promise.all(roots.map(async (p) => ({ p, got: await readInstructions(tools, caller, p) })));
  return {
    roots: read.flatMap(({ p, got }) => (got === null ? [] : [{ folder: p.slice(0, -INSTRUCTIONS_FILE.length - 1) || '/', path: p, text: got.text, bytes: got.bytes }])),
    nested,
  };
}

/** One AGENTS.md's text (at most MAX_INSTRUCTIONS_BYTES) and its size, or null when it is not a regular file. */
export async function readInstructions(tools: SandboxTools, caller: Caller, file: string): Promise<{ text: string; bytes: number } | null> {
  const q = shellQuote(file);
  const r = await tools.run(caller, helper(`[ -f ${q} ] && [ ! -L ${q} ] || exit 3; printf '%s\\n' "$(($(wc -c < ${q})))"; head -c ${MAX_INSTRUCTIONS_BYTES} < ${q}`));
  if (r.exitCode !== 0) return null;
  const newline = r.output.indexOf('\n');
  const bytes = Number(r.output.slice(0, newline));
  if (newline < 0 || !Number.isFinite(bytes)) return null;
  // eslint-disable-next-line no-control-regex
  return { text: r.output.slice(newline + 1).replace(/\u0000/g, ''), bytes };
}

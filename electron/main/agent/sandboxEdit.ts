/**
 * edit_file: read the file inside the sandbox, decide the change in Berth (policy/fileEdit),
 * write it back inside the sandbox. Nothing here touches a host file: the chat's files may be
 * links the container chose. The write keeps the file's mode, lands by rename (never half a
 * file), and is refused when the file changed since it was read.
 */
import { createHash } from 'node:crypto';
import { planEdits } from './common/fileEdit.js';
import { unifiedDiff } from '../policy/lineDiff.js';
import { shellQuote } from '../policy/shellProtocol.js';
import { helper, refused, WRITE_LIMIT_BYTES, type Caller, type SandboxTools, type ToolOutcome } from './sandboxTools.js';
import type { ToolArgs } from './toolSpecs.js';

/** The edited file goes back through one command, as write_file's content does. */
export const EDIT_LIMIT_BYTES = WRITE_LIMIT_BYTES;
/**
 * Read in parts: exec keeps 32 KiB of head and 32 KiB of tail of a command's output
 * (sandboxService OUTPUT_HEAD/TAIL_BYTES); 45,000 bytes are 60,000 in base64, plus its newlines.
 */
const READ_CHUNK_BYTES = 45_000;
/** How the write script says the file changed after it was read. */
const CHANGED_EXIT = 3;

/** An edit decided and ready: what the user approves (the diff) and what will be written. */
export interface PreparedEdit {
  path: string;
  bytes: Buffer;
  /** The file's sha256 when it was read: the write happens only if it still has it. */
  readHash: string;
  mode: string;
  diff: string;
  replacements: number;
  command: string;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export async function prepareEdit(tools: SandboxTools, caller: Caller, args: ToolArgs<'edit_file'>): Promise<PreparedEdit | ToolOutcome> {
  const where = await tools.confined(caller, args.path, 'write');
  if (typeof where !== 'string') return refused(`edit ${args.path}`, where.problem);
  const command = `edit ${where}`;
  const q = shellQuote(where);
  const head = await tools.run(caller, helper(`[ -f ${q} ] || { echo 'it is not a regular file (or does not exist)' >&2; exit 2; }; stat -c '%s %a' -- ${q} && sha256sum < ${q}`));
  if (head.exitCode !== 0) return refused(command, `Could not read ${where}: ${head.output.trim()}`);
  const [sizeText = '', mode = '', hash = ''] = head.output.trim().split(/\s+/);
  const size = Number(sizeText);
  if (!/^[0-7]{3,4}$/.test(mode) || !/^[0-9a-f]{64}$/.test(hash) || !Number.isFinite(size)) return refused(command, `Could not read ${where}: ${head.output.trim()}`);
  if (size > EDIT_LIMIT_BYTES) return refused(command, `${where} is ${size} bytes; edit_file takes files up to ${EDIT_LIMIT_BYTES}. Use the terminal tool (sed, a script) for this one.`);

  const parts: Buffer[] = [];
  for (let offset = 0; offset < size; offset += READ_CHUNK_BYTES) {
    const r = await tools.run(caller, helper(`tail -c +${offset + 1} < ${q} | head -c ${READ_CHUNK_BYTES} | base64`));
    if (r.exitCode !== 0) return refused(command, `Could not read ${where}: ${r.output.trim()}`);
    parts.push(Buffer.from(r.output.replace(/\s+/g, ''), 'base64'));
  }
  const before = Buffer.concat(parts);
  if (sha256(before) !== hash) return refused(command, `${where} changed while it was being read; nothing was edited. Try again.`);
  if (before.includes(0)) return refused(command, `${where} is a binary file; edit_file changes text files only.`);
  const text = before.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(before)) return refused(command, `${where} is not UTF-8 text; editing it would change bytes it did not mean to. Use the terminal tool.`);

  const plan = planEdits(text, args.edits);
  if (!plan.ok) return refused(command, plan.problem);
  const bytes = Buffer.from(plan.text, 'utf8');
  if (bytes.length > EDIT_LIMIT_BYTES) return refused(command, `The edited file would be ${bytes.length} bytes; edit_file writes at most ${EDIT_LIMIT_BYTES}.`);
  return { path: where, bytes, readHash: hash, mode, diff: unifiedDiff(where, text, plan.text), replacements: plan.replacements, command };
}

export async function commitEdit(tools: SandboxTools, caller: Caller, e: PreparedEdit): Promise<ToolOutcome> {
  const q = shellQuote(e.path);
  const dir = shellQuote(e.path.slice(0, e.path.lastIndexOf('/')) || '/');
  const r = await tools.run(caller, helper(
    `t=$(mktemp ${dir}/.berth-edit.XXXXXX) || exit 1; ` +
      `printf '%s' ${shellQuote(e.bytes.toString('base64'))} | base64 -d > "$t" && chmod ${e.mode} "$t" || { rm -f -- "$t"; exit 1; }; ` +
      // Checked last, just before the rename: a change the user or a command made meanwhile is kept.
      `set -- $(sha256sum < ${q}); [ "$1" = ${e.readHash} ] || { rm -f -- "$t"; echo 'it changed after it was read' >&2; exit ${CHANGED_EXIT}; }; ` +
      `mv -f -- "$t" ${q} || { rm -f -- "$t"; exit 1; }`,
  ));
  const card = { command: e.command, cwd: null, diff: e.diff };
  if (r.exitCode === CHANGED_EXIT) {
    return { ...card, ok: false, exitCode: r.exitCode, output: `${e.path} changed after it was read; nothing was edited.`, resultForModel: `Refused: ${e.path} changed after it was read (by a command, or by the user); nothing was edited. Read it again and redo the edit.` };
  }
  if (r.exitCode !== 0) return { ...card, ok: false, exitCode: r.exitCode, output: r.output, resultForModel: `Could not write ${e.path}: ${r.output.trim()}` };
  const what = `${e.replacements} replacement${e.replacements === 1 ? '' : 's'}`;
  return { ...card, ok: true, exitCode: 0, output: `Edited ${e.path}: ${what}.`, resultForModel: `Edited ${e.path}: ${what}.` };
}

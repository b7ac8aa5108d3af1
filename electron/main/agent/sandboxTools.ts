/**
 * The agent's tools that act in the chat's sandbox. Everything runs inside the container
 * through the core's exec (its cwd policy, timeout and output cap); nothing here reads or
 * writes a host file. File tools are confined to the attached folders: the path is checked
 * before, and again after the container resolved its symlinks.
 */
import type { ExecResult } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { resolveAgentPath, type AgentFolder } from '../policy/agentPaths.js';
import { randomBytes } from 'node:crypto';
import { readWindow } from './common/readWindow.js';
import { noOtherProcess, splitPortsEpilogue, withPortsEpilogue } from './common/portsEpilogue.js';
import { shellQuote } from '../policy/shellProtocol.js';
import type { ToolArgs } from './toolSpecs.js';

export interface AgentSandbox {
  exec(req: { chatId: string; taskId?: string; command: string; workdir?: string; timeoutMs?: number }, signal?: AbortSignal): Promise<ExecResult>;
  interrupt(chatId: string, taskId?: string): Promise<unknown>;
  /** The chat's attached folders that its container mounts, as the container sees them. */
  folders(chatId: string): AgentFolder[];
  /** What the network policy refused for the chat since a time (a note for the model), or null. */
  networkRefusals?(chatId: string, since: number, output: string): Promise<string | null>;
  /**
   * The ports the sandbox began listening on since the last command, and how the user opens them
   * (a note for the model), or null; `listing`: the kernel's TCP tables as the command's run read them.
   */
  newPorts?(chatId: string, listing?: string): Promise<string | null>;
}

/** What a tool call produced: the card's fields, and the text the model gets back. */
export interface ToolOutcome {
  ok: boolean;
  command: string;
  cwd: string | null;
  exitCode: number | null;
  output: string;
  resultForModel: string;
  /** An edit's change as a unified diff, for the card. */
  diff?: string;
}

export const READ_LIMIT_BYTES = 60_000;
const FILE_OP_TIMEOUT_MS = 60_000;
/** exec takes commands up to 1 MiB; base64 grows content by a third. */
export const WRITE_LIMIT_BYTES = 700_000;

export interface Caller {
  chatId: string;
  /** The subagent's task id; undefined for the chat's own agent. */
  taskId: string | undefined;
  /** Stop: nothing new starts once it fires. */
  signal?: AbortSignal;
}

/** A write checked and ready: the resolved path, shown to the user before it happens. */
export interface PreparedWrite {
  path: string;
  bytes: Buffer;
  command: string;
}

/** What the model cannot change for Berth's own helper commands: a plain PATH, no preloads, no shell functions. */
const CLEAN_ENV =
  'unset LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV CDPATH GLOBIGNORE IFS; ' +
  'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; ' +
  'unset -f dirname basename readlink head ls mkdir base64 printf mv rm cd pwd 2>/dev/null; ';

/**
 * The agent's commands run with pipefail where the shell has it (bash, busybox ash; in dash,
 * which lacks it, `command` keeps the failed `set` from ending the shell): `make 2>&1 | tail -20`, the way models read long
 * output, otherwise ends with tail's status, and a failed build showed as a green "Exit code 0"
 * to the user and as success to the model. A stage that dies because a later one stopped
 * reading (`... | head`) then counts too (141). The option lives only in the command's own
 * subshell (policy/shellProtocol runs each command in a fresh one).
 */
const PIPEFAIL = 'command set -o pipefail 2>/dev/null; ';

/** Runs a helper script in a nested subshell, so what it sets never reaches the chat's shell. */
export function helper(script: string): string {
  return `( ${CLEAN_ENV}${script} )`;
}

export function refused(command: string, problem: string): ToolOutcome {
  return { ok: false, command, cwd: null, exitCode: null, output: problem, resultForModel: `Refused: ${problem}` };
}

function execText(r: ExecResult): string {
  return [r.output, ...r.notices.map((n) => `[${n}]`)].filter((s) => s !== '').join('\n');
}

export class SandboxTools {
  constructor(private readonly sandbox: AgentSandbox) {}

  async terminal(caller: Caller, args: ToolArgs<'terminal'>): Promise<ToolOutcome> {
    if (caller.signal?.aborted) throw new BerthError('invalid_request', 'Stopped before it ran.');
    const started = Date.now();
    // The listening ports are read by the command's own run (common/portsEpilogue).
    const marker = this.sandbox.newPorts ? `__berth_ports_${randomBytes(8).toString('hex')}` : null;
    const ran = await this.sandbox.exec({
      chatId: caller.chatId,
      taskId: caller.taskId,
      command: `${PIPEFAIL}${marker ? withPortsEpilogue(args.command, marker) : args.command}`,
      workdir: args.workdir,
      timeoutMs: args.timeout_seconds === undefined ? undefined : Math.max(100, Math.round(args.timeout_seconds * 1000)),
    }, caller.signal);
    const split = marker ? splitPortsEpilogue(ran.output, marker) : { output: ran.output, listing: null };
    const r = split.listing === null ? ran : { ...ran, output: split.output, outputBytes: ran.outputBytes - Buffer.byteLength(ran.output) + Buffer.byteLength(split.output) };
    const refusals = await this.sandbox.networkRefusals?.(caller.chatId, started, r.output).catch(() => null);
    // No process left that could listen: no port can have opened, and the ports seen stay as they were.
    const opened = noOtherProcess(split.listing) ? null : await this.sandbox.newPorts?.(caller.chatId, split.listing ?? undefined).catch(() => null);
    let text = refusals ? `${execText(r)}\n${refusals}` : execText(r);
    if (opened) text = `${text}\n${opened}`;
    return {
      ok: r.exitCode === 0,
      command: args.command,
      cwd: r.cwd,
      exitCode: r.exitCode,
      output: text,
      resultForModel: `exit code ${r.exitCode}${r.truncated ? ` (output cut to its head and tail; ${r.outputBytes} bytes in all)` : ''}\n${text}`,
    };
  }

  /**
   * A file, or a range of its lines, cut to READ_LIMIT_BYTES. Streamed through tail and head:
   * a 100 MB file (or one 100 MB line) is never held whole by the sandbox or by Berth.
   */
  async readFile(caller: Caller, args: ToolArgs<'read_file'>): Promise<ToolOutcome> {
    const where = await this.confined(caller, args.path, 'read');
    if (typeof where !== 'string') return refused(`read ${args.path}`, where.problem);
    const q = shellQuote(where);
    const first = args.offset ?? 1;
    const range = `${first > 1 ? `tail -n +${first} < ${q}` : `cat < ${q}`}${args.limit === undefined ? '' : ` | head -n ${args.limit}`}`;
    const r = await this.run(caller, helper(
      `[ -f ${q} ] || { echo 'it is not a regular file (or does not exist)' >&2; exit 2; }; ` +
        `n=$(wc -l < ${q}); [ -n "$(tail -c 1 < ${q})" ] && n=$((n + 1)); printf '%s %s\n' "$(wc -c < ${q})" "$n"; ` +
        `${range} | head -c ${READ_LIMIT_BYTES + 1}`,
    ));
    const command = `read ${where}${args.offset !== undefined || args.limit !== undefined ? ` (lines ${first}${args.limit === undefined ? '–' : `–${first + args.limit - 1}`})` : ''}`;
    if (r.exitCode !== 0) return { ok: false, command, cwd: null, exitCode: r.exitCode, output: r.output, resultForModel: `Could not read ${where}: ${r.output.trim()}` };
    const newline = r.output.indexOf('\n');
    const [size = 0, lines = 0] = r.output.slice(0, newline).trim().split(/\s+/).map(Number);
    const content = r.output.slice(newline + 1);
    if (content.includes('\u0000')) return { ok: false, command, cwd: null, exitCode: 0, output: 'binary file', resultForModel: `${where} is a binary file; it was not read.` };
    const shown = readWindow(content, { first, lines, size, limitBytes: READ_LIMIT_BYTES });
    return { ok: true, command, cwd: null, exitCode: 0, output: shown, resultForModel: shown };
  }

  /** Checks a write and resolves where it would land; nothing is written yet. */
  async prepareWrite(caller: Caller, args: ToolArgs<'write_file'>): Promise<PreparedWrite | ToolOutcome> {
    const bytes = Buffer.from(args.content, 'utf8');
    if (bytes.length > WRITE_LIMIT_BYTES) return refused(`write ${args.path}`, `The content is ${bytes.length} bytes; write_file takes at most ${WRITE_LIMIT_BYTES}. Write it in parts with the terminal tool.`);
    const where = await this.confined(caller, args.path, 'write');
    if (typeof where !== 'string') return refused(`write ${args.path}`, where.problem);
    return { path: where, bytes, command: `write ${where} (${bytes.length} bytes)` };
  }

  /** Writes through a temporary file renamed into place: a stopped write never leaves a half file. */
  async commitWrite(caller: Caller, w: PreparedWrite): Promise<ToolOutcome> {
    const q = shellQuote(w.path);
    const dir = shellQuote(w.path.slice(0, w.path.lastIndexOf('/')) || '/');
    const tmp = shellQuote(`${w.path}.berth-write`);
    const r = await this.run(caller, helper(`mkdir -p -- ${dir} && printf '%s' ${shellQuote(w.bytes.toString('base64'))} | base64 -d > ${tmp} && mv -f -- ${tmp} ${q} || { rm -f -- ${tmp}; exit 1; }`));
    if (r.exitCode !== 0) return { ok: false, command: w.command, cwd: null, exitCode: r.exitCode, output: r.output, resultForModel: `Could not write ${w.path}: ${r.output.trim()}` };
    return { ok: true, command: w.command, cwd: null, exitCode: 0, output: `Wrote ${w.bytes.length} bytes.`, resultForModel: `Wrote ${w.bytes.length} bytes to ${w.path}.` };
  }

  async listDir(caller: Caller, args: ToolArgs<'list_dir'>): Promise<ToolOutcome> {
    const where = await this.confined(caller, args.path ?? '.', 'read');
    if (typeof where !== 'string') return refused(`list ${args.path ?? '.'}`, where.problem);
    const r = await this.run(caller, helper(`ls -la -- ${shellQuote(where)}`));
    return {
      ok: r.exitCode === 0, command: `list ${where}`, cwd: null, exitCode: r.exitCode, output: r.output,
      resultForModel: r.exitCode === 0 ? r.output : `Could not list ${where}: ${r.output.trim()}`,
    };
  }

  /**
   * The path the tool may use, or why not. The container resolves symlinks (a link in the
   * workspace could point anywhere in the container), and the resolved path is checked again.
   */
  async confined(caller: Caller, requested: string, intent: 'read' | 'write'): Promise<string | { problem: string }> {
    const folders = this.sandbox.folders(caller.chatId);
    const first = resolveAgentPath(requested, folders, intent);
    if (!first.ok) return { problem: first.problem };
    const q = shellQuote(first.path);
    // Resolve the nearest part that exists (a write may create folders under it): a link
    // anywhere along the path is followed before the check, not after.
    const r = await this.run(
      caller,
      helper(
        `p=${q}; rest=''; while [ ! -e "$p" ] && [ ! -L "$p" ]; do rest="/$(basename -- "$p")$rest"; p=$(dirname -- "$p"); done; ` +
          `if [ -d "$p" ]; then p=$(cd -P -- "$p" && pwd); else p=$(readlink -f -- "$p"); fi; [ -n "$p" ] || exit 1; ` +
          `printf '%s' "\${p%/}$rest"`,
      ),
    );
    if (r.exitCode !== 0 || r.output === '') return { problem: `Could not resolve ${first.path} in the sandbox.` };
    const second = resolveAgentPath(r.output, folders, intent);
    if (!second.ok) return { problem: `${first.path} leads to ${r.output}: ${second.problem}` };
    return second.path;
  }

  async run(caller: Caller, command: string): Promise<ExecResult> {
    if (caller.signal?.aborted) throw new BerthError('invalid_request', 'Stopped before it ran.');
    try {
      return await this.sandbox.exec({ chatId: caller.chatId, taskId: caller.taskId, command, timeoutMs: FILE_OP_TIMEOUT_MS }, caller.signal);
    } catch (error) {
      if (error instanceof BerthError) throw error;
      throw new BerthError('internal', 'A file tool failed inside the sandbox.', { cause: error });
    }
  }
}


/**
 * What runs in a chat's terminals, asked inside its container before something would end them
 * (attaching or detaching a folder recreates the sandbox). Pure: the script and its parser.
 *
 * Each terminal's shell carries `BERTH_TERMINAL=<id>` in its environment, which everything it
 * starts inherits. The script reads /proc (busybox has no portable `ps -o`): every process with
 * the marker, its parent and its command line. The shell itself is the one whose parent is
 * outside the container's view (ppid 0: started by `docker exec`); the rest are what the user runs.
 */

export const TERMINAL_ENV = 'BERTH_TERMINAL';

export const PROCESS_LIST_SCRIPT = [
  'for d in /proc/[0-9]*; do',
  `  t=$(tr '\\0' '\\n' < "$d/environ" 2>/dev/null | sed -n 's/^${TERMINAL_ENV}=//p')`,
  '  [ -n "$t" ] || continue',
  '  s=$(cat "$d/stat" 2>/dev/null) || continue',
  '  set -- ${s##*) }',
  `  c=$(tr '\\0' ' ' < "$d/cmdline" 2>/dev/null)`,
  '  printf "%s\\t%s\\t%s\\t%s\\n" "$t" "${d#/proc/}" "$2" "$c"',
  'done',
].join('\n');

export interface TerminalProcess {
  terminalId: string;
  pid: number;
  /** The command line, as `ps` shows it. */
  command: string;
}

/** The user's processes per terminal (shells left out), in pid order; unknown lines are skipped. */
export function parseProcessList(output: string): TerminalProcess[] {
  const found: TerminalProcess[] = [];
  for (const line of output.split('\n')) {
    const [terminalId, pid, ppid, ...rest] = line.split('\t');
    const command = rest.join('\t').trim();
    if (!terminalId || !/^\d+$/.test(pid ?? '') || !/^\d+$/.test(ppid ?? '') || command === '') continue;
    if (Number(ppid) === 0) continue; // the terminal's own shell
    found.push({ terminalId, pid: Number(pid), command });
  }
  return found.sort((a, b) => a.pid - b.pid);
}

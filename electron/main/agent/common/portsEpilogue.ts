/**
 * The listening-ports reading that follows an agent's command, taken by the command's own run
 * instead of a second one. The agent is told when its command made the sandbox listen on a new
 * port; reading /proc/net/tcp through the chat's shell after each command was a second round
 * trip that cost about as much as the command itself (npm run bench:agent, `echo bench`: 40-100
 * ms of the 110 ms Berth added per call under load). The command ends with the reading printed
 * after a random marker line, and Berth takes it off the output before anyone sees it. A command
 * that exits by itself, is stopped or is cut in the middle of the reading leaves no whole
 * reading: the caller reads the ports the slower way then.
 */

/**
 * What the reading holds when no process but the container's init, the chat's shell and the
 * command's own subshell was left when the command ended: nothing of the sandbox's can listen
 * then (a listening socket is held by a process), so the tables are not read. They cost 2.8 of
 * the 7 ms the shell took for `echo bench` (npm run bench:agent, bookworm image): the kernel
 * walks its whole TCP hash table, sized by the machine's memory, to list one namespace's
 * sockets. Any other process (a server an earlier command left starting, a terminal's shell, an
 * MCP server) and the tables are read as before, so a server that binds late is still told.
 */
export const NO_OTHER_PROCESS = '__berth_no_other_process';

/**
 * The command, then (keeping its exit status) the marker and the kernel's TCP tables, read by
 * the shell itself: a `cat` of them was a process started in the sandbox after every command,
 * 1.5 of the 7 ms the shell took for `echo bench` (npm run bench:agent, bookworm image). The
 * processes are listed the same way, by the shell's glob of /proc; its own pid is the first
 * field of /proc/self/stat, read by the shell (in a subshell $$ is the parent's). A failed look
 * (no /proc, globbing off) counts as another process: the tables are read.
 */
export function withPortsEpilogue(command: string, marker: string): string {
  const others = `__berth_o=; read -r __berth_s __berth_x < /proc/self/stat; for __berth_p in /proc/[0-9]*; do __berth_p=\${__berth_p#/proc/}; case $__berth_p in 1|$$|"$__berth_s") ;; *) __berth_o=1; break;; esac; done`;
  const tables = `for __f in /proc/net/tcp /proc/net/tcp6; do [ -r $__f ] && while IFS= read -r __l; do printf '%s\\n' "$__l"; done < $__f; done`;
  return `${command}\n__berth_rc=$?; printf '\\n%s\\n' '${marker}'; ${others}; if [ -n "$__berth_o" ]; then ${tables}; else printf '%s\\n' '${NO_OTHER_PROCESS}'; fi; printf '%s\\n' '${marker}'; exit $__berth_rc`;
}

/**
 * The command's own output (with the newline the epilogue added taken off) and the reading, or
 * the output as it came and null when no whole reading is there.
 */
export function splitPortsEpilogue(output: string, marker: string): { output: string; listing: string | null } {
  const close = output.endsWith(`\n${marker}\n`) ? output.length - marker.length - 1 : -1;
  const open = close < 2 ? -1 : output.lastIndexOf(`\n${marker}\n`, close - 2);
  if (open < 0 || close < open + marker.length + 2) return { output, listing: null };
  return { output: output.slice(0, open), listing: output.slice(open + marker.length + 2, close) };
}

/** Whether a reading says no process of the sandbox's was left that could listen (nothing new to tell, nothing to read). */
export function noOtherProcess(listing: string | null): boolean {
  return listing === `${NO_OTHER_PROCESS}\n`;
}

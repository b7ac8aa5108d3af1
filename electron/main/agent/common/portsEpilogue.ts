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
 * The command, then (keeping its exit status) the marker and the kernel's TCP tables, read by
 * the shell itself: a `cat` of them was a process started in the sandbox after every command,
 * 1.5 of the 7 ms the shell took for `echo bench` (npm run bench:agent, bookworm image).
 */
export function withPortsEpilogue(command: string, marker: string): string {
  return `${command}\n__berth_rc=$?; printf '\\n%s\\n' '${marker}'; for __f in /proc/net/tcp /proc/net/tcp6; do [ -r $__f ] && while IFS= read -r __l; do printf '%s\\n' "$__l"; done < $__f; done; printf '%s\\n' '${marker}'; exit $__berth_rc`;
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

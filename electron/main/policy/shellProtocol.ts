/**
 * The long-lived shell in each container. Its main process reads shell code from stdin; Berth
 * sends one function call per command. Each command runs in a fresh subshell that restores
 * the exported variables saved by the previous one, so a timeout or an interrupt that kills
 * the command never loses the shell's state. Pure: text in, text out.
 */

/** The container's main process: bash when the image has it, otherwise sh. */
export const SHELL_BOOTSTRAP =
  'if command -v bash >/dev/null 2>&1; then exec bash --noprofile --norc -s; fi; exec sh -s';

/**
 * On the container's tmpfs: saving state there keeps a warm command near a millisecond. So
 * exported variables last as long as the container runs; the cwd is kept by Berth itself.
 */
export const SHELL_STATE_DIR = '/tmp/.berth-shell';

/** Sent once after each attach; defining functions twice is harmless. */
export const SHELL_PRELUDE = `
__BS=${SHELL_STATE_DIR}
mkdir -p -m 700 "$__BS" 2>/dev/null
__berth_save() {
  __s=$?
  pwd > "$__BS/cwd" 2>/dev/null
  export -p > "$__BS/env" 2>/dev/null
  exit $__s
}
__berth_run() {
  __m=$1 __d=$2 __f=$3 __c=$4 __n=$5
  : > "$__BS/cwd" 2>/dev/null
  (
    # The command must not see its end marker, or it could end its own output early.
    set --
    unset __m
    trap __berth_save EXIT
    if [ -r "$__BS/env" ]; then . "$__BS/env" >/dev/null 2>&1; fi
    if ! cd -- "$__d" 2>/dev/null; then
      printf 'berth: %s does not exist; starting in %s\\n' "$__d" "$__f" >&2
      cd -- "$__f" 2>/dev/null || cd /
    fi
    eval "$__c"
  ) </dev/null 2>&1 &
  __p=$!
  echo "$__p $__n" > "$__BS/pid"
  wait "$__p"
  __rc=$?
  __cwd=
  if [ -s "$__BS/cwd" ]; then read -r __cwd < "$__BS/cwd"; fi
  printf '%s %s %s\\n' "$__m" "$__rc" "$__cwd"
}
`;

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `serial` numbers the command, so a late signal never reaches the command after it. */
export function commandLine(marker: string, cwd: string, fallback: string, command: string, serial: number): string {
  return `__berth_run ${shellQuote(marker)} ${shellQuote(cwd)} ${shellQuote(fallback)} ${shellQuote(command)} ${serial}\n`;
}

/**
 * Signals the running command's process tree (the pid the shell recorded), found by walking
 * /proc so it works in any image with a POSIX sh. The command's own subshell is stopped first
 * and killed last: a shell that outlives a child killed by a signal reports it ("Terminated")
 * on its stderr, which is the command's output; stopped, then killed, it never can. The
 * descendants are remembered per command, so the KILL that follows a TERM still reaches those
 * that ignored it, though their shell (the tree's root) is gone by then.
 */
export function killTreeScript(signal: 'INT' | 'TERM' | 'KILL', serial: number): string {
  const n = Math.trunc(serial);
  return `
__kids() { for __s in /proc/[0-9]*/stat; do
  read -r __l < "$__s" 2>/dev/null || continue
  __r=\${__l##*) }; set -- $__r
  if [ "$2" = "$__want" ]; then __x=\${__s#/proc/}; echo "\${__x%/stat}"; fi
done; }
__tree() { __want=$1; for __c in $(__kids); do __tree "$__c"; done; echo "$1"; }
__doomed=${SHELL_STATE_DIR}/doomed.${n}
__root=
if [ -s ${SHELL_STATE_DIR}/pid ]; then
  read -r __root __serial < ${SHELL_STATE_DIR}/pid
  [ "$__serial" = "${n}" ] || __root=
  case $__root in ''|*[!0-9]*|1) __root= ;; esac
fi
if [ -n "$__root" ]; then
  kill -STOP "$__root" 2>/dev/null
  for __p in $(__tree "$__root"); do [ "$__p" = "$__root" ] || echo "$__p"; done >> "$__doomed"
fi
if [ -s "$__doomed" ]; then
  for __p in $(cat "$__doomed"); do kill -${signal} "$__p" 2>/dev/null; done
fi
if [ -n "$__root" ]; then kill -KILL "$__root" 2>/dev/null; fi
${signal === 'KILL' ? 'rm -f "$__doomed"' : ':'}
exit 0
`;
}

/** Longest end line Berth waits for after a marker; anything longer is the command's own output. */
export const MAX_END_LINE = 8192;

export interface CommandEnd {
  /** Bytes of output before the marker. */
  outputEnd: number;
  /** Index just past the end line. */
  consumed: number;
  exitCode: number;
  cwd: string | null;
}

/**
 * Parses an end line `<marker> <rc> <cwd>\n` that starts at offset 0 of `buffer`:
 * 'incomplete' while its newline has not arrived, null when it is not an end line.
 */
export function parseEndLine(buffer: Buffer, marker: string): CommandEnd | 'incomplete' | null {
  if (!buffer.subarray(0, marker.length).equals(Buffer.from(marker))) return null;
  const nl = buffer.indexOf(0x0a, marker.length);
  if (nl < 0) return buffer.length - marker.length > MAX_END_LINE ? null : 'incomplete';
  const line = buffer.subarray(marker.length, nl).toString('utf8');
  const match = /^ (\d{1,3}) (\/[^\n]*)?$/.exec(line);
  if (!match) return null;
  return { outputEnd: 0, consumed: nl + 1, exitCode: Number(match[1]), cwd: match[2] ?? null };
}

/** Finds the end line in buffered stdout, or null if it is not (yet) there. */
export function findCommandEnd(buffer: Buffer, marker: string): CommandEnd | null {
  let from = 0;
  for (;;) {
    const at = buffer.indexOf(marker, from);
    if (at < 0) return null;
    const end = parseEndLine(buffer.subarray(at), marker);
    if (end && end !== 'incomplete') return { ...end, outputEnd: at, consumed: at + end.consumed };
    if (end === 'incomplete') return null;
    from = at + 1;
  }
}

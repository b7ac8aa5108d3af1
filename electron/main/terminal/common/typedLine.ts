/**
 * What the user has typed into a shell since they last entered a line: keystrokes the shell holds
 * in its line editor and has not run. A shell holding them is not idle, though nothing runs in it
 * (a process list cannot see a half-typed command), and a shell started again in its place is
 * given them back. No I/O.
 */

/** Enter (CR or LF), Ctrl-C, Ctrl-D, Ctrl-U: each ends or empties the line being typed. */
const LINE_ENDS = new Set(['\r', '\n', '\u0003', '\u0004', '\u0015']);

/** Beyond this many characters the line is not worth giving back (a paste, not typing). */
export const TYPED_LINE_CHARS = 4096;

/** The line after `data` was typed onto `line`: what follows the last line end in it. */
export function afterTyping(line: string, data: string): string {
  let last = -1;
  for (let i = data.length - 1; i >= 0; i--) {
    if (LINE_ENDS.has(data[i] as string)) {
      last = i;
      break;
    }
  }
  const next = last >= 0 ? data.slice(last + 1) : line + data;
  return next.length > TYPED_LINE_CHARS ? '' : next;
}

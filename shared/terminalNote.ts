/**
 * A note from Berth in a terminal ("[folders changed]", "[… — press Restart]"): on a line of its
 * own, in brackets, in the UI's muted grey (#8b93a3), which is 5.9:1 on the terminal's
 * background #14161a. Not SGR 2 (faint): xterm draws faint text at half opacity, 4.2:1 there,
 * under WCAG's 4.5:1 for text (axe, color-contrast). Written by main and by the page.
 */
const MUTED = '\x1b[38;2;139;147;163m';
const RESET = '\x1b[0m';

export function terminalNote(text: string): string {
  return `\r\n${MUTED}[${text}]${RESET}\r\n`;
}

/**
 * How terminal output travels from a container to xterm.js, in one place because both ends
 * rely on these numbers (main joins output before sending it; the page joins it again before
 * handing it to xterm). Chosen by measurement with `npm run bench:app` (bench/README.md):
 * sending every chunk the engine hands us as its own event costs ~430 events and xterm writes
 * per 16 MiB; joining for a few milliseconds cuts that several-fold, and writing to xterm at
 * most about twice per frame while output keeps coming cuts the page's layout work.
 *
 * Typing must stay immediate: output after a quiet spell (an echo, a prompt) goes out at once;
 * only output that follows other output closely waits, and never longer than the delay.
 */
export const TERMINAL_OUTPUT = {
  /** Main: the longest output waits to be joined with what follows it. */
  coalesceMs: 4,
  /** Main: send at once when this many characters are waiting. */
  coalesceMaxChars: 64 * 1024,
  /** The page: the shortest time between two writes to xterm while output keeps coming. */
  writeIntervalMs: 33,
  /** The page: write at once when this many characters are waiting. */
  writeMaxChars: 1024 * 1024,
} as const;

/**
 * Terminal flow control, the numbers both ends rely on (docs/transport.md): main stops reading
 * a terminal while more than HIGH_WATER_CHARS of its output is unacknowledged and resumes below
 * LOW_WATER_CHARS; the screen acknowledges what it has written in batches, at most one per
 * ACK_INTERVAL_MS or at once when ACK_BATCH_CHARS are waiting.
 */
// Large enough that a fast screen is rarely paused (measured: 15–20% faster floods than 256/64 KiB),
// small enough that a stalled screen holds at most a couple of MiB and Ctrl+C still lands soon.
export const HIGH_WATER_CHARS = 2 * 1024 * 1024;
export const LOW_WATER_CHARS = 512 * 1024;

// A flood (`yes`) costs a handful of acks per frame, never one per chunk. The batch must not
// exceed the low watermark, or a paused terminal could wait a full interval for output the
// screen has already written (shared/flowControl.test.ts holds it to that).
export const ACK_INTERVAL_MS = 16;
export const ACK_BATCH_CHARS = 256 * 1024;

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
  /**
   * The page: while a flood goes on, xterm draws the screen at most once per this interval instead
   * of every frame (renderer/features/terminals/renderPacer.ts); its end and output after a quiet
   * spell are drawn at the next frame.
   */
  floodDrawIntervalMs: 100,
} as const;

/**
 * The page keeps the xterm screens of recently shown chats alive while the user is in another
 * chat (renderer/features/terminals/sessions.ts): coming back then shows the screen as it is,
 * with no new xterm, no `terminal.replay` round trip and no re-parse of the replay, so a switch
 * fits in a frame. Kept screens still take their output (parsed, not drawn, acknowledged as
 * written, so flow control holds) and cost page memory, so both numbers bound it:
 * - chats: a user works in a handful of chats at once, but switching through a long sidebar
 *   should not rebuild every screen; kept screens with a few screenfuls each measured ~0.45 MB of
 *   page JS heap apiece (55 MB after switching through 100 chats, 14 MB through 10:
 *   `npm run bench:app`, bench/README.md);
 * - lines: what a kept screen really costs is its buffer (xterm keeps ~12 bytes per cell, about
 *   1 KB per 80-column line), so the total of kept lines caps the worst case (every chat with a
 *   full 10,000-line scrollback) at ~100 MB instead of 100 × 10 MB.
 * The chat on screen is never let go; the least recently shown goes first.
 */
export const TERMINAL_KEEP_ALIVE = {
  maxChats: 100,
  maxLines: 100_000,
} as const;

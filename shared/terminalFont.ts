/**
 * The terminal's font, in one place: the app's xterm uses it, and the terminal bench gives its
 * peer (wetty) the same one, so both draw the same glyphs at the same size.
 */
export const TERMINAL_FONT = {
  family: 'ui-monospace, "DejaVu Sans Mono", "Cascadia Mono", Menlo, Consolas, monospace',
  size: 13,
} as const;

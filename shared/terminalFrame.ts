/**
 * Terminal output as a binary WebSocket frame (docs/transport.md). A page that asks for it (the
 * subprotocol below) gets every `terminal.data` notification as one binary frame instead of a
 * JSON text frame; every other message stays JSON-RPC text, and a client that does not ask gets
 * text only. The payload is the same as the event's, `{ terminalId, data }`, so both transports
 * (and the in-process core) deliver one contract.
 *
 * Why: output is most of what a terminal sends, and as JSON it is escaped by main
 * (`\r\n` → `\\r\\n`) and parsed again by the page, measured at a few hundred milliseconds of
 * CPU per 16 MiB `cat` on each side; the binary frame is the UTF-8 bytes with a short header.
 *
 * Layout: byte 0 is the kind (1: terminal.data); byte 1 the terminal id's length n in bytes
 * (ASCII, at most 255); then the id; the rest is the output, UTF-8.
 */
export const TERMINAL_FRAME_PROTOCOL = 'berth.terminal-frames.v1';
export const FRAME_TERMINAL_DATA = 1;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** The frame for one `terminal.data` event; null when the id cannot go in a header (never for Berth's UUIDs). */
export function encodeTerminalData(terminalId: string, data: string): Uint8Array | null {
  // eslint-disable-next-line no-control-regex
  if (terminalId.length > 255 || !/^[\x00-\x7f]*$/.test(terminalId)) return null;
  const head = 2 + terminalId.length;
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  const frame = new Uint8Array(head + data.length * 3);
  frame[0] = FRAME_TERMINAL_DATA;
  frame[1] = terminalId.length;
  for (let i = 0; i < terminalId.length; i++) frame[2 + i] = terminalId.charCodeAt(i);
  const { written } = encoder.encodeInto(data, frame.subarray(head));
  return frame.subarray(0, head + written);
}

/** A frame's event, or null when it is not a frame of this layout. */
export function decodeTerminalFrame(frame: Uint8Array): { terminalId: string; data: string } | null {
  if (frame.length < 2 || frame[0] !== FRAME_TERMINAL_DATA) return null;
  const head = 2 + (frame[1] as number);
  if (frame.length < head) return null;
  let terminalId = '';
  for (let i = 2; i < head; i++) terminalId += String.fromCharCode(frame[i] as number);
  return { terminalId, data: decoder.decode(frame.subarray(head)) };
}

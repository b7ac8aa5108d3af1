/**
 * The framed protocol between Berth and a sandbox's one long-lived relay (ports/muxRelay.ts and
 * the relay programs in muxPrograms.ts): many TCP connections to ports inside the container over
 * the one exec's stdin and stdout, so a new connection costs a frame, not a `docker exec`.
 *
 * A frame is a 9-byte header, type (1 byte), connection id (uint32, big-endian), payload length
 * (uint32, big-endian), then the payload:
 * - OPEN (Berth → relay): connect to "address port" (ASCII) inside the container under this id;
 * - DATA (both ways): bytes of the connection;
 * - END (Berth → relay): nothing more will be written (the relay half-closes its socket);
 * - CLOSE (both ways): the connection is over; from the relay, its payload says why when it
 *   failed (UTF-8: "connection refused"), empty when the server closed it;
 * - WINDOW (both ways): the receiver took this many more bytes (uint32 payload). Each side may
 *   have at most INITIAL_WINDOW bytes of a connection's DATA unacknowledged, so one slow reader
 *   never fills the shared stream for the others.
 * No I/O.
 */

export const FRAME = { open: 1, data: 2, end: 3, close: 4, window: 5 } as const;
export type FrameType = (typeof FRAME)[keyof typeof FRAME];

export const HEADER_BYTES = 9;
/**
 * Bytes of one connection's DATA a side may send before the other grants more: the most a
 * channel holds in flight, so a reader that stopped costs at most this much memory on each
 * side. It must outlast a grant's round trip through the engine at full speed: at 100 MB/s (the
 * exec path's best here) 4 MiB lasts 40 ms, against a round trip of 1–5 ms (a small request's
 * through the forward under load average 15–20, npm run bench:ports).
 */
export const INITIAL_WINDOW = 4 * 1024 * 1024;
/**
 * A receiver grants bytes back in batches this large, not a WINDOW frame per chunk: a small
 * request and its answer then cost one frame each way. It never stalls a sender: a sender waits
 * only with a whole window unacknowledged, which holds many batches.
 */
export const GRANT_AT = 256 * 1024;
/** The largest DATA payload either side writes in one frame (the relays read sockets in 256 KiB). */
export const MAX_DATA = 256 * 1024;
/** A control frame (OPEN, CLOSE, WINDOW) is small; a longer one means the stream is garbled. */
const MAX_CONTROL = 4096;

export interface Frame {
  type: FrameType;
  id: number;
  payload: Buffer;
}

export function frameHeader(type: FrameType, id: number, length: number): Buffer {
  const h = Buffer.allocUnsafe(HEADER_BYTES);
  h.writeUInt8(type, 0);
  h.writeUInt32BE(id >>> 0, 1);
  h.writeUInt32BE(length >>> 0, 5);
  return h;
}

export function encodeFrame(type: FrameType, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([frameHeader(type, id, payload.length), payload]);
}

export function openPayload(address: string, port: number): Buffer {
  return Buffer.from(`${address} ${port}`, 'ascii');
}

export function windowPayload(bytes: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(bytes >>> 0, 0);
  return b;
}

const KNOWN = new Set<number>(Object.values(FRAME));

/**
 * Splits a byte stream into frames, whatever its chunks. DATA comes out as it arrives (a frame's
 * payload may be given in several pieces, each a view of the input, never copied); the other
 * frames whole. Throws on a header no relay writes (the stream is garbled: end the relay).
 */
export class FrameDecoder {
  private header = Buffer.alloc(HEADER_BYTES);
  private headerFill = 0;
  /** The frame being read: its type, id and how many payload bytes are still to come. */
  private current: { type: FrameType; id: number; left: number; parts: Buffer[] } | null = null;

  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    let at = 0;
    while (at < chunk.length || (this.current && this.current.left === 0)) {
      if (!this.current) {
        const take = Math.min(HEADER_BYTES - this.headerFill, chunk.length - at);
        chunk.copy(this.header, this.headerFill, at, at + take);
        this.headerFill += take;
        at += take;
        if (this.headerFill < HEADER_BYTES) break;
        this.headerFill = 0;
        const type = this.header.readUInt8(0);
        const id = this.header.readUInt32BE(1);
        const left = this.header.readUInt32BE(5);
        if (!KNOWN.has(type)) throw new Error(`The relay sent a frame of unknown type ${type}.`);
        if (type === FRAME.data ? left > MAX_DATA * 4 : left > MAX_CONTROL) throw new Error(`The relay sent a frame of ${left} bytes, more than its protocol allows.`);
        this.current = { type: type as FrameType, id, left, parts: [] };
        continue;
      }
      const c = this.current;
      const take = Math.min(c.left, chunk.length - at);
      const piece = chunk.subarray(at, at + take);
      at += take;
      c.left -= take;
      if (c.type === FRAME.data) {
        if (piece.length > 0) out.push({ type: c.type, id: c.id, payload: piece });
      } else {
        c.parts.push(piece);
        if (c.left === 0) out.push({ type: c.type, id: c.id, payload: Buffer.concat(c.parts) });
      }
      if (c.left === 0) this.current = null;
    }
    return out;
  }
}

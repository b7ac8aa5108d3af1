// The relay's framing survives any split of the stream (fast-check), and refuses garbage.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame, FRAME, FrameDecoder, openPayload, windowPayload, type Frame, type FrameType } from './muxFrames.js';

/** Consecutive DATA of one id as one frame (the decoder may hand a payload over in pieces); empty DATA dropped. */
function normal(frames: Frame[]): Array<{ type: FrameType; id: number; payload: string }> {
  const out: Array<{ type: FrameType; id: number; payload: string }> = [];
  for (const f of frames) {
    if (f.type === FRAME.data && f.payload.length === 0) continue;
    const last = out[out.length - 1];
    if (f.type === FRAME.data && last?.type === FRAME.data && last.id === f.id) last.payload += f.payload.toString('hex');
    else out.push({ type: f.type, id: f.id, payload: f.payload.toString('hex') });
  }
  return out;
}

const frame: fc.Arbitrary<Frame> = fc.oneof(
  fc.record({ type: fc.constant(FRAME.data as FrameType), id: fc.nat(), payload: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) }),
  fc.record({
    type: fc.constantFrom<FrameType>(FRAME.open, FRAME.end, FRAME.close, FRAME.window),
    id: fc.nat(),
    payload: fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  }),
);

describe('FrameDecoder', () => {
  it('gives back every frame encoded, however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), (frames, cuts) => {
        const stream = Buffer.concat(frames.map((f) => encodeFrame(f.type, f.id, f.payload)));
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const decoder = new FrameDecoder();
        const got: Frame[] = [];
        let from = 0;
        for (const p of [...points, stream.length]) {
          got.push(...decoder.push(stream.subarray(from, p)));
          from = p;
        }
        expect(normal(got)).toEqual(normal(frames));
      }),
    );
  });

  it('reads the open and window payloads the relays write', () => {
    const d = new FrameDecoder();
    const [open, win] = d.push(Buffer.concat([encodeFrame(FRAME.open, 7, openPayload('::1', 5173)), encodeFrame(FRAME.window, 7, windowPayload(65536))]));
    expect(open).toEqual({ type: FRAME.open, id: 7, payload: Buffer.from('::1 5173') });
    expect(win?.payload.readUInt32BE(0)).toBe(65536);
  });

  it('refuses a stream that is not frames (an unknown type, a control frame too long to be one)', () => {
    expect(() => new FrameDecoder().push(Buffer.from('HTTP/1.1 200 OK\r\n'))).toThrow(/unknown type 72/);
    expect(() => new FrameDecoder().push(Buffer.from([FRAME.close, 0, 0, 0, 1, 0, 1, 0, 0]))).toThrow(/more than its protocol allows/);
  });
});

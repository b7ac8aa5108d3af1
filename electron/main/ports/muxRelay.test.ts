// A channel of the sandbox's relay keeps to its window: it sends no more than the relay granted,
// and the rest when the relay grants more; the relay's end ends every channel with its reason.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../engine/dockerEngine.js';
import { encodeFrame, FRAME, FrameDecoder, INITIAL_WINDOW, windowPayload, type Frame } from './common/muxFrames.js';
import { MuxRelay } from './muxRelay.js';

async function relay() {
  const sent: Frame[] = [];
  const decoder = new FrameDecoder();
  const stdin = new Writable({
    write(chunk: Buffer, _e, done) {
      sent.push(...decoder.push(chunk));
      done();
    },
  });
  const stdout = new PassThrough();
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const engine = { execPipe: async () => ({ stdin, stdout, stderr: new PassThrough(), ended, close: () => end() }) } as unknown as Engine;
  const mux = await MuxRelay.start(engine, 'c1', '1000:1000', ['relay']);
  const dataBytes = (id: number) => sent.filter((f) => f.type === FRAME.data && f.id === id).reduce((n, f) => n + f.payload.length, 0);
  return { mux, sent, stdout, end, dataBytes };
}

describe('MuxRelay', () => {
  it('sends a channel no more than its window, and the rest as the relay grants it', async () => {
    const { mux, stdout, dataBytes } = await relay();
    const channel = mux.open('127.0.0.1', 8000);
    let written = false;
    channel.write(Buffer.alloc(INITIAL_WINDOW + 1000, 1), () => (written = true));
    await new Promise((r) => setImmediate(r));
    expect(dataBytes(1)).toBe(INITIAL_WINDOW);
    expect(written).toBe(false);
    stdout.write(encodeFrame(FRAME.window, 1, windowPayload(600)));
    await new Promise((r) => setImmediate(r));
    expect(dataBytes(1)).toBe(INITIAL_WINDOW + 600);
    stdout.write(encodeFrame(FRAME.window, 1, windowPayload(600)));
    await new Promise((r) => setImmediate(r));
    expect(dataBytes(1)).toBe(INITIAL_WINDOW + 1000);
    expect(written).toBe(true);
  });

  it('hands each channel its own data, ends one the relay closed with its reason, and all when the relay ends', async () => {
    const { mux, stdout, end } = await relay();
    const a = mux.open('127.0.0.1', 8000);
    const b = mux.open('::1', 5173);
    const got: Record<string, string> = { a: '', b: '' };
    a.on('data', (c: Buffer) => (got.a += c.toString()));
    b.on('data', (c: Buffer) => (got.b += c.toString()));
    stdout.write(Buffer.concat([encodeFrame(FRAME.data, 2, Buffer.from('to b')), encodeFrame(FRAME.data, 1, Buffer.from('to a')), encodeFrame(FRAME.close, 1, Buffer.from('Connection refused'))]));
    await new Promise((r) => a.once('close', r));
    expect(got).toEqual({ a: 'to a', b: 'to b' });
    expect(a.problem).toBe('Connection refused');
    end();
    await new Promise((r) => b.once('close', r));
    expect(b.problem).toMatch(/ended/);
    expect(() => mux.open('127.0.0.1', 8000)).toThrow(/relay is gone/);
  });

  it('ends the relay, and its connections with a reason, when it sends a connection more than its window', async () => {
    const { mux, stdout } = await relay();
    const channel = mux.open('127.0.0.1', 8000);
    const closed = new Promise((r) => channel.once('close', r));
    // Nobody reads the connection, so nothing is granted: a window's worth, then one byte more.
    for (const n of [INITIAL_WINDOW / 4, INITIAL_WINDOW / 4, INITIAL_WINDOW / 4, INITIAL_WINDOW / 4, 1]) stdout.write(encodeFrame(FRAME.data, 1, Buffer.alloc(n)));
    channel.resume();
    await closed;
    expect(channel.problem).toMatch(/broke its protocol: it sent a connection more than its window/);
    expect(mux.ended).not.toBeNull();
  });
});

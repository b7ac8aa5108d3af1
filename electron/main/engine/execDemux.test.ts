import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { demuxExec } from './execDemux.js';

function frame(type: number, payload: string): Buffer {
  const h = Buffer.alloc(8);
  h[0] = type;
  h.writeUInt32BE(Buffer.byteLength(payload), 4);
  return Buffer.concat([h, Buffer.from(payload)]);
}

describe('demuxExec', () => {
  it('splits frames into stdout and stderr however the chunks cut them', async () => {
    const all = Buffer.concat([frame(1, 'hello '), frame(2, 'oops'), frame(1, 'world'), frame(1, '')]);
    for (const size of [1, 3, 7, 8, 9, all.length]) {
      const input = new PassThrough();
      const out = new PassThrough();
      const err = new PassThrough();
      const o: Buffer[] = [];
      const e: Buffer[] = [];
      out.on('data', (c: Buffer) => o.push(c));
      err.on('data', (c: Buffer) => e.push(c));
      demuxExec(input, out, err);
      for (let i = 0; i < all.length; i += size) input.write(all.subarray(i, i + size));
      await new Promise((r) => setImmediate(r));
      expect(Buffer.concat(o).toString()).toBe('hello world');
      expect(Buffer.concat(e).toString()).toBe('oops');
    }
  });
});

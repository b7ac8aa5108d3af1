/**
 * Splits a non-TTY exec's hijacked stream into stdout and stderr (Docker's frames: 1 byte
 * stream, 3 reserved, 4 bytes big-endian length, then the payload) without copying payloads.
 * docker-modem's demuxStream concatenates every chunk onto what it holds, which cut a port
 * forward's relay from about 100 to 66 MB/s (a 64 MiB `cat` through execPipe on this 2-core
 * machine under load, raw stream against demuxStream, measured with dockerode directly);
 * slicing the chunks as they come keeps the raw stream's rate. Honors the outputs' backpressure.
 */
import type { Readable, Writable } from 'node:stream';

export function demuxExec(stream: Readable, stdout: Writable, stderr: Writable): void {
  let header: Buffer = Buffer.alloc(0);
  let remaining = 0;
  let target: Writable = stdout;
  stream.on('data', (chunk: Buffer) => {
    let off = 0;
    while (off < chunk.length) {
      if (remaining === 0) {
        const take = Math.min(8 - header.length, chunk.length - off);
        header = header.length ? Buffer.concat([header, chunk.subarray(off, off + take)]) : chunk.subarray(off, off + take);
        off += take;
        if (header.length < 8) break;
        target = header[0] === 2 ? stderr : stdout;
        remaining = header.readUInt32BE(4);
        header = Buffer.alloc(0);
        continue;
      }
      const take = Math.min(remaining, chunk.length - off);
      const out = target;
      if (!out.write(chunk.subarray(off, off + take))) {
        stream.pause();
        out.once('drain', () => stream.resume());
      }
      off += take;
      remaining -= take;
    }
  });
}

/**
 * The floor of any forward through the Engine API, measured beside Berth's in the same run: a
 * plain forward with nothing of Berth's in it. Each connection to its loopback listener gets a
 * `docker exec` of its own running the smallest relay (python3: stdin/stdout to the server's
 * port), and the bytes are piped both ways as they come: no judging of requests, no
 * multiplexing, no flow control. What this path cannot reach, no forward that keeps to the
 * Engine API can: the engine's exec stream (dockerd copying the process's pipes to the API
 * connection) is the part both share.
 */
import net from 'node:net';
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';

const RELAY = `import os, select, socket
s = socket.create_connection(('127.0.0.1', 8000))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while True:
    r, _, _ = select.select([0, s], [], [])
    if 0 in r:
        b = os.read(0, 65536)
        if not b:
            break
        s.sendall(b)
    if s in r:
        b = s.recv(65536)
        if not b:
            break
        os.write(1, b)
`;

export interface PlainForward {
  port: number;
  close(): Promise<void>;
}

/** A plain Engine API forward to port 8000 of `containerId`, listening on 127.0.0.1. */
export async function plainEngineForward(containerId: string): Promise<PlainForward> {
  const engine = new Docker();
  const container = engine.getContainer(containerId);
  const streams = new Set<NodeJS.ReadWriteStream & { destroy(): void }>();
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.pause();
    // The bench's client drops each handshake's connection at once: a reset is its end.
    socket.on('error', () => socket.destroy());
    void (async () => {
      const exec = await container.exec({ Cmd: ['python3', '-I', '-S', '-c', RELAY], AttachStdin: true, AttachStdout: true, AttachStderr: true, User: '1000' });
      const stream = (await exec.start({ hijack: true, stdin: true })) as NodeJS.ReadWriteStream & { destroy(): void };
      streams.add(stream);
      stream.on('error', () => stream.destroy());
      const out = new PassThrough();
      engine.modem.demuxStream(stream, out, new PassThrough());
      out.pipe(socket);
      socket.pipe(stream);
      socket.resume();
      const end = () => (stream.destroy(), socket.destroy(), streams.delete(stream));
      socket.once('close', end);
      stream.once('end', end);
    })().catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of streams) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

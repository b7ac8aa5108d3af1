/**
 * One TCP connection to a port inside a sandbox, carried by the Engine API: a channel of the
 * sandbox's one relay (muxRelay.ts), or where the image has no interpreter for that, a docker
 * exec (no TTY, stdin attached) of a relay tool that connects to the port inside the container
 * and pipes its stdin and stdout (common/listeningPorts.ts: relayCommand). Either works wherever
 * an exec does: sealed `none` and `allowlist` networks, ssh:// and tcp engines, Podman. The
 * container publishes nothing.
 */
import http from 'node:http';
import { Duplex } from 'node:stream';
import type { AttachedStreams, Engine } from '../engine/dockerEngine.js';

/** How a forward reaches its port: a relay exec per connection (execTarget), or a channel of the sandbox's one relay (muxRelay.ts). */
export interface RelayTarget {
  open(): Promise<RelayConnection>;
}

/**
 * One connection to a port in the sandbox as a socket: what http.Agent pools and what a
 * WebSocket upgrade is piped to. The few socket methods Node's HTTP client calls are here.
 */
export abstract class RelayConnection extends Duplex {
  /** Set while the relay waits in the agent's pool: it ends when nothing takes it in time. */
  idle: NodeJS.Timeout | null = null;
  /** What the relay said about why it could not connect. */
  problem = '';

  // Node's HTTP client and agent call these on their sockets.
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  /** Idle relays are ended by the agent's pool (relayAgent), not by socket timeouts. */
  setTimeout(): this {
    return this;
  }
}

/** A relay tool exec'd for each connection, as the sandbox's own user (a relay never runs as root). */
export function execTarget(engine: Engine, containerId: string, user: string, cmd: string[]): RelayTarget {
  return { open: async () => new RelaySocket(await engine.execPipe(containerId, cmd, user)) };
}

/**
 * One relay exec's streams as a socket; the connection ends, both ways, when the relay in the
 * container exits (the server closed its side). `problem` is what it said on stderr.
 */
class RelaySocket extends RelayConnection {
  constructor(private readonly streams: AttachedStreams) {
    super({ allowHalfOpen: false });
    streams.stdout.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) streams.stdout.pause();
    });
    streams.stdout.on('end', () => this.push(null));
    streams.stderr.on('data', (chunk: Buffer) => (this.problem = (this.problem + chunk.toString('utf8')).slice(-500)));
    streams.stdin.on('error', (error) => this.destroy(error));
    void streams.ended.then(() => this.push(null));
  }

  override _read(): void {
    this.streams.stdout.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.streams.stdin.write(chunk, done);
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    if (this.idle) clearTimeout(this.idle);
    this.streams.close();
    done(error);
  }
}

/**
 * Keeps relays open between requests (keep-alive), so a page's requests after the first do not
 * each pay an exec's start (tens of milliseconds); relays idle longer than IDLE_MS end.
 */
const IDLE_MS = 30_000;
/** Each idle relay is a process in the sandbox; a browser opens six at a time per origin. */
const MAX_IDLE = 8;

export function relayAgent(target: () => RelayTarget, opened: (socket: RelayConnection) => void): http.Agent {
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: MAX_IDLE });
  agent.on('free', (socket: RelayConnection) => {
    if (socket.idle) clearTimeout(socket.idle);
    socket.idle = setTimeout(() => socket.destroy(), IDLE_MS);
    socket.idle.unref();
  });
  const reuse = agent.reuseSocket.bind(agent);
  agent.reuseSocket = (socket, request) => {
    const relay = socket as unknown as RelayConnection;
    if (relay.idle) clearTimeout(relay.idle);
    relay.idle = null;
    reuse(socket, request);
  };
  (agent as unknown as { createConnection: (o: unknown, cb: (error: Error | null, socket?: Duplex) => void) => undefined }).createConnection = (_options, cb) => {
    target().open().then(
      (socket) => {
        opened(socket);
        cb(null, socket);
      },
      (error: Error) => cb(error),
    );
    return undefined;
  };
  return agent;
}

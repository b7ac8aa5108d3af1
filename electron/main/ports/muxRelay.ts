/**
 * A sandbox's one long-lived relay (common/muxPrograms.ts), started by one `docker exec` as the
 * sandbox's own user and kept while the sandbox has forwards: every connection to a port in the
 * container is a channel of it (common/muxFrames.ts), so a page's sixth connection or a dev
 * server's WebSocket costs a frame, not an exec's start. Each channel has its own window both
 * ways: a reader that stops (a paused download) holds back its own server only.
 */
import type { AttachedStreams, Engine } from '../engine/dockerEngine.js';
import { encodeFrame, FRAME, FrameDecoder, frameHeader, GRANT_AT, INITIAL_WINDOW, MAX_DATA, openPayload, windowPayload, type Frame } from './common/muxFrames.js';
import { RelayConnection, type RelayTarget } from './relay.js';


const SMALL = 16 * 1024;

export class MuxRelay {
  private readonly channels = new Map<number, MuxChannel>();
  private readonly decoder = new FrameDecoder();
  private nextId = 1;
  private said = '';
  /** Why the relay is over (the exec ended: the sandbox stopped, the engine went away); null while it runs. */
  ended: string | null = null;

  private constructor(private readonly streams: AttachedStreams) {
    streams.stdout.on('data', (chunk: Buffer) => this.received(chunk));
    streams.stderr.on('data', (chunk: Buffer) => (this.said = (this.said + chunk.toString('utf8')).slice(-500)));
    streams.stdin.on('error', () => this.finish('its input closed'));
    void streams.ended.then(() => this.finish('it ended'));
  }

  static async start(engine: Engine, containerId: string, user: string, cmd: string[]): Promise<MuxRelay> {
    return new MuxRelay(await engine.execPipe(containerId, cmd, user));
  }

  /** A target for a forward: each connection a new channel to address:port in the container. */
  target(address: string, port: number): RelayTarget {
    return { open: async () => this.open(address, port) };
  }

  open(address: string, port: number): MuxChannel {
    if (this.ended !== null) throw new Error(`The sandbox's relay is gone (${this.ended}).`);
    const id = this.nextId++;
    const channel = new MuxChannel(this, id);
    this.channels.set(id, channel);
    this.send(FRAME.open, id, openPayload(address, port));
    return channel;
  }

  close(): void {
    this.finish('Berth closed it');
    this.streams.close();
  }

  /** @internal for channels */
  send(type: (typeof FRAME)[keyof typeof FRAME], id: number, payload?: Buffer, done?: (error?: Error | null) => void): void {
    if (this.ended !== null) return void done?.(new Error(`The sandbox's relay is gone (${this.ended}).`));
    // A small frame goes in one write (one message through the engine), a large one without a copy.
    if (type === FRAME.data && payload && payload.length > SMALL) {
      this.streams.stdin.write(frameHeader(type, id, payload.length));
      this.streams.stdin.write(payload, done);
    } else {
      this.streams.stdin.write(encodeFrame(type, id, payload), done);
    }
  }

  /** @internal The relay broke its protocol (garbled, or past a window): it and its connections end, saying why. */
  broken(why: string): void {
    this.finish(`it broke its protocol: ${why}`);
    this.streams.close();
  }

  /** @internal for channels */
  forget(id: number): void {
    this.channels.delete(id);
  }

  private received(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      return this.broken((error as Error).message);
    }
    for (const f of frames) {
      const channel = this.channels.get(f.id);
      if (!channel) continue;
      if (f.type === FRAME.data) channel.deliver(f.payload);
      else if (f.type === FRAME.window) channel.granted(f.payload.readUInt32BE(0));
      else if (f.type === FRAME.close) channel.closedThere(f.payload.toString('utf8'));
    }
  }

  private finish(why: string): void {
    if (this.ended !== null) return;
    this.ended = this.said.trim() ? `${why}: ${this.said.trim()}` : why;
    for (const channel of [...this.channels.values()]) channel.closedThere(this.ended);
    this.channels.clear();
  }
}

/** One connection through the sandbox's relay, as a socket. */
export class MuxChannel extends RelayConnection {
  /** Bytes this side may still send before the relay grants more. */
  private credit = INITIAL_WINDOW;
  /** Bytes received and handed on, not yet granted back. */
  private taken = 0;
  /** Bytes the relay may still send this channel: the window less what it sent, plus what was granted. */
  private allowed = INITIAL_WINDOW;
  private waiting: { chunk: Buffer; done: (error?: Error | null) => void } | null = null;
  private over = false;

  constructor(
    private readonly mux: MuxRelay,
    private readonly id: number,
  ) {
    super({ allowHalfOpen: false });
  }

  /** @internal DATA from the relay. */
  deliver(payload: Buffer): void {
    if (this.over) return;
    this.allowed -= payload.length;
    // The relay runs as the sandbox user, who can make it write anything: more than its window
    // would be buffered here without bound, so the relay is ended instead.
    if (this.allowed < 0) return this.mux.broken('it sent a connection more than its window');
    this.taken += payload.length;
    this.push(payload);
  }

  /** @internal WINDOW from the relay: it wrote that many more bytes to the server. */
  granted(bytes: number): void {
    this.credit += bytes;
    const w = this.waiting;
    if (w) {
      this.waiting = null;
      this.writeOut(w.chunk, w.done);
    }
  }

  /** @internal CLOSE from the relay (the server closed, or the connection failed: `why`), or the relay ended. */
  closedThere(why: string): void {
    if (this.over) return;
    this.over = true;
    this.problem = why;
    this.mux.forget(this.id);
    const w = this.waiting;
    this.waiting = null;
    w?.done(new Error(why || 'The server in the sandbox closed the connection.'));
    this.push(null);
  }

  override _read(): void {
    if (this.taken >= GRANT_AT && !this.over) {
      this.mux.send(FRAME.window, this.id, windowPayload(this.taken));
      this.allowed += this.taken;
      this.taken = 0;
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.writeOut(chunk, done);
  }

  /** As much of the chunk as the window allows now, the rest when the relay grants more. */
  private writeOut(chunk: Buffer, done: (error?: Error | null) => void): void {
    if (this.over) return done(new Error(this.problem || 'The server in the sandbox closed the connection.'));
    let rest = chunk;
    while (rest.length > 0 && this.credit > 0) {
      const part = rest.subarray(0, Math.min(this.credit, MAX_DATA));
      rest = rest.subarray(part.length);
      this.credit -= part.length;
      if (rest.length === 0) return this.mux.send(FRAME.data, this.id, part, done);
      this.mux.send(FRAME.data, this.id, part);
    }
    if (rest.length === 0) return done();
    this.waiting = { chunk: rest, done };
  }

  override _final(done: (error?: Error | null) => void): void {
    if (!this.over) this.mux.send(FRAME.end, this.id);
    done();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    if (this.idle) clearTimeout(this.idle);
    if (!this.over) {
      this.over = true;
      this.mux.forget(this.id);
      this.mux.send(FRAME.close, this.id);
    }
    done(error);
  }
}

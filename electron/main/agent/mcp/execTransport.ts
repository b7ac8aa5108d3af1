/**
 * An MCP stdio transport over a docker exec's streams: the server runs inside the chat's
 * sandbox as its user, and its stdin/stdout are the exec's (engine execPipe, frames split by
 * execDemux). Messages are the SDK's own newline-delimited JSON (ReadBuffer, serializeMessage).
 * What the server writes to stderr is kept (its last 4 KiB) to say why it ended.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AttachedStreams } from '../../engine/dockerEngine.js';

const STDERR_KEPT = 4096;
/** One message larger than this ends the connection (the SDK's own stdio default is 10 MiB). */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export class ExecTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private closed = false;
  private stderrTail = '';

  constructor(private readonly streams: AttachedStreams) {}

  /** The end of what the server wrote to stderr: why it stopped, usually. */
  get stderr(): string {
    return this.stderrTail;
  }

  async start(): Promise<void> {
    this.streams.stdout.on('data', (chunk: Buffer) => {
      try {
        this.buffer.append(chunk);
        for (let m = this.buffer.readMessage(); m !== null; m = this.buffer.readMessage()) this.onmessage?.(m);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    });
    this.streams.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    void this.streams.ended.then(() => this.finish());
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The MCP server has stopped.'));
    return new Promise((resolve, reject) => {
      this.streams.stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.streams.close();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}

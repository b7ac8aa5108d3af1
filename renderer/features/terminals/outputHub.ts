/**
 * Routes `terminal.data` to the xterm screen of that terminal, shown or kept (sessions.ts).
 * Output of a terminal with no screen (its chat was let go of, or never shown) is acknowledged at
 * once and dropped, so main keeps reading it; a new screen repaints from `terminal.replay`.
 */
import type { BerthApi } from '../../api/types';
import { AckBatcher, type AckPolicy, ACK_POLICY } from './ackBatcher';

export type OutputSink = (data: string) => void;

export class TerminalOutputHub {
  private readonly sinks = new Map<string, OutputSink>();
  private readonly batchers = new Map<string, AckBatcher>();
  private readonly offs: (() => void)[];

  constructor(
    private readonly api: BerthApi,
    private readonly policy: AckPolicy = ACK_POLICY,
  ) {
    this.offs = [
      api.on('terminal.data', ({ terminalId, data }) => {
        const sink = this.sinks.get(terminalId);
        if (sink) sink(data);
        else this.ack(terminalId, data.length);
      }),
      // An ended terminal sends nothing more: its ack batcher can go (disposing acks what waits).
      api.on('terminal.exit', ({ terminalId }) => {
        this.batchers.get(terminalId)?.dispose();
        this.batchers.delete(terminalId);
      }),
    ];
  }

  /** Sends this terminal's output to `sink` until the returned function is called. */
  attach(terminalId: string, sink: OutputSink): () => void {
    // Acks owed for background output go out first, before the screen's replay resets main's count.
    this.batchers.get(terminalId)?.flush();
    this.sinks.set(terminalId, sink);
    return () => {
      if (this.sinks.get(terminalId) === sink) this.sinks.delete(terminalId);
      // No new batcher: an ended terminal's is gone, and a missing one has nothing waiting.
      this.batchers.get(terminalId)?.flush();
    };
  }

  /** Records characters written to the screen (or dropped), acknowledged in batches. */
  ack(terminalId: string, chars: number): void {
    this.batcher(terminalId).add(chars);
  }

  dispose(): void {
    for (const off of this.offs) off();
    for (const b of this.batchers.values()) b.dispose();
    this.batchers.clear();
    this.sinks.clear();
  }

  private batcher(terminalId: string): AckBatcher {
    let b = this.batchers.get(terminalId);
    if (!b) {
      b = new AckBatcher((chars) => {
        this.api.call('terminal.ack', { terminalId, chars }).catch(() => {
          // The terminal ended or the connection dropped: nothing is waiting on this ack any more.
        });
      }, this.policy);
      this.batchers.set(terminalId, b);
    }
    return b;
  }
}

/**
 * What stands between a provider's answer and the OpenAI SDK: a byte cap, and for an event
 * stream a clean copy of it, cut at `data: [DONE]`. The SSE itself is read by a maintained
 * parser (eventsource-parser); the SDK then reads the copy. The copy is needed because the
 * SDK's own reader
 * - reads on after [DONE] until the server closes, and some servers never do (the turn would hang);
 * - fails on an event without data (keep-alives such as `event: ping` or a bare `data:`);
 * - drops a last event whose blank line never came (servers often close right after it).
 */
import { createParser } from 'eventsource-parser';

export interface AnswerGuard {
  readonly stream: TransformStream<Uint8Array, Uint8Array>;
  /** The server sent `data: [DONE]`: the answer is whole, whatever its last chunk said. */
  readonly sawDone: boolean;
}

export interface AnswerGuardOptions {
  /** The most bytes of the raw answer read; past it the stream fails with `tooLong()`. */
  maxBytes: number;
  tooLong: () => Error;
}

/** Counts bytes only: for an answer that is one JSON body. */
export function cappedBody(opts: AnswerGuardOptions): TransformStream<Uint8Array, Uint8Array> {
  let received = 0;
  return new TransformStream({
    transform(chunk, controller) {
      received += chunk.byteLength;
      // A model stuck repeating itself must not grow Berth's memory without end.
      if (received > opts.maxBytes) throw opts.tooLong();
      controller.enqueue(chunk);
    },
  });
}

export function eventStreamGuard(opts: AnswerGuardOptions): AnswerGuard {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let received = 0;
  let sawDone = false;
  // Whether the text so far ends at a line end, i.e. the last line arrived whole.
  let atLineEnd = true;
  let out: TransformStreamDefaultController<Uint8Array> | null = null;
  const parser = createParser({
    onEvent(event) {
      if (sawDone || !out) return;
      // Nothing to decode in an event without data; the SDK would fail on it.
      if (event.data === '') return;
      const fields = event.event ? `event: ${event.event}\n` : '';
      out.enqueue(encoder.encode(`${fields}${event.data.split('\n').map((line) => `data: ${line}\n`).join('')}\n`));
      if (event.data === '[DONE]') {
        sawDone = true;
        // Ends the copy and cancels the server's stream: nothing more is wanted from it.
        out.terminate();
      }
    },
  });
  const feed = (text: string) => {
    if (text === '') return;
    atLineEnd = /[\r\n]$/.test(text);
    parser.feed(text);
  };
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > opts.maxBytes) throw opts.tooLong();
      out = controller;
      feed(decoder.decode(chunk, { stream: true }));
    },
    flush(controller) {
      out = controller;
      feed(decoder.decode());
      // The stream ended. An event whose lines all arrived is still delivered; one whose last
      // line was cut is dropped, as that line may be half of something.
      if (atLineEnd) parser.feed('\n\n');
    },
  });
  return {
    stream,
    get sawDone() {
      return sawDone;
    },
  };
}

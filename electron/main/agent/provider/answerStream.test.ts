import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { cappedBody, eventStreamGuard } from './answerStream.js';

const tooLong = () => new Error('too long');

/** Runs `pieces` (as separate network chunks) through a guard; what comes out, and the guard. */
async function guarded(pieces: string[], maxBytes = 1 << 20) {
  const guard = eventStreamGuard({ maxBytes, tooLong });
  const encoder = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of pieces) controller.enqueue(encoder.encode(p));
      controller.close();
    },
  });
  const text = await new Response(source.pipeThrough(guard.stream)).text();
  return { text, guard };
}

/** The events in the guard's copy, read as any SSE client (the SDK included) would. */
async function events(pieces: string[]): Promise<EventSourceMessage[]> {
  const out: EventSourceMessage[] = [];
  createParser({ onEvent: (e) => out.push(e) }).feed((await guarded(pieces)).text);
  return out.map(({ event, data }) => (event === undefined ? { data } : { event, data }));
}

/** Every way of cutting the text in two, so no split point is special. */
function everySplit(text: string): string[][] {
  const splits: string[][] = [];
  for (let i = 0; i <= text.length; i++) splits.push([text.slice(0, i), text.slice(i)]);
  return splits;
}

describe('eventStreamGuard', () => {
  it('passes data events on and drops comments', async () => {
    expect(await events([': keep-alive\n\ndata: {"a":1}\n\n: another\ndata: {"b":2}\n\n'])).toEqual([{ data: '{"a":1}' }, { data: '{"b":2}' }]);
  });

  it('keeps multi-line data and the event name', async () => {
    expect(await events(['event: update\ndata: one\ndata:two\ndata:  three\n\n'])).toEqual([{ event: 'update', data: 'one\ntwo\n three' }]);
  });

  it.each([
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
    ['\\r', '\r'],
  ])('handles %s line endings however the text is split', async (_name, eol) => {
    const text = `data: first${eol}data: more${eol}${eol}: c${eol}data: second${eol}${eol}`;
    const expected = [{ data: 'first\nmore' }, { data: 'second' }];
    for (const pieces of everySplit(text)) expect(await events(pieces)).toEqual(expected);
    expect(await events([...text])).toEqual(expected);
  });

  it('delivers a complete last event without its blank line, but drops one whose last line was cut', async () => {
    expect(await events(['data: {"a":1}\n'])).toEqual([{ data: '{"a":1}' }]);
    expect(await events(['data: {"a":1}\r'])).toEqual([{ data: '{"a":1}' }]);
    expect(await events(['data: {"a":1}\n\ndata: {"choices":[{"del'])).toEqual([{ data: '{"a":1}' }]);
  });

  it('drops events without data (keep-alives), which the SDK would fail to decode', async () => {
    expect(await events(['event: ping\n\ndata:\n\ndata\ndata: x\n\n'])).toEqual([{ data: '\nx' }]);
  });

  it('ends the copy at [DONE], even when the server would send more', async () => {
    const { text, guard } = await guarded(['data: {"a":1}\n\ndata: [DONE]\n\ndata: {"after":1}\n\n']);
    expect(guard.sawDone).toBe(true);
    expect(text).not.toContain('after');
    expect((await guarded(['data: {"a":1}\n\n'])).guard.sawDone).toBe(false);
  });

  it('ends at [DONE] while the server keeps the connection open', async () => {
    const guard = eventStreamGuard({ maxBytes: 1 << 20, tooLong });
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: {"a":1}\n\ndata: [DONE]\n\n'));
        // ...and never closes.
      },
      cancel() {
        cancelled = true;
      },
    });
    expect(await new Response(source.pipeThrough(guard.stream)).text()).toContain('[DONE]');
    await expect.poll(() => cancelled).toBe(true);
  });

  it('fails the stream once more than maxBytes arrived, before passing the chunk that crossed it', async () => {
    const piece = `data: ${'y'.repeat(94)}\n\n`; // 102 bytes
    await expect(guarded([piece, piece], 150)).rejects.toThrow('too long');
    expect((await guarded([piece], 150)).text).toContain('yyy');
  });
});

describe('cappedBody', () => {
  it('passes bytes as they are up to the cap, then fails', async () => {
    const read = (text: string) => new Response(new Response(text).body!.pipeThrough(cappedBody({ maxBytes: 10, tooLong }))).text();
    expect(await read('{"a":"ü"}')).toBe('{"a":"ü"}');
    await expect(read('{"a":"long enough"}')).rejects.toThrow('too long');
  });
});

import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from './sse.js';

function parseInPieces(pieces: string[]): SseEvent[] {
  const parser = new SseParser();
  return [...pieces.flatMap((p) => parser.push(p)), ...parser.end()];
}

/** Every way of cutting the text in two, so no split point is special. */
function everySplit(text: string): string[][] {
  const splits: string[][] = [];
  for (let i = 0; i <= text.length; i++) splits.push([text.slice(0, i), text.slice(i)]);
  return splits;
}

describe('SseParser', () => {
  it('yields data events and ignores comments', () => {
    const events = parseInPieces([': keep-alive\n\ndata: {"a":1}\n\n: another\ndata: [DONE]\n\n']);
    expect(events).toEqual([{ data: '{"a":1}' }, { data: '[DONE]' }]);
  });

  it('joins multi-line data with \\n and carries the event name', () => {
    const events = parseInPieces(['event: update\ndata: one\ndata:two\ndata:  three\n\n']);
    expect(events).toEqual([{ event: 'update', data: 'one\ntwo\n three' }]);
  });

  it.each([
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
    ['\\r', '\r'],
  ])('handles %s line endings however the text is split', (_name, eol) => {
    const text = `data: first${eol}data: more${eol}${eol}: c${eol}data: second${eol}${eol}`;
    const expected = [{ data: 'first\nmore' }, { data: 'second' }];
    for (const pieces of everySplit(text)) expect(parseInPieces(pieces)).toEqual(expected);
    expect(parseInPieces([...text])).toEqual(expected);
  });

  it('does not read a \\r\\n split across chunks as two line ends (which would end the event early)', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\r')).toEqual([]);
    expect(parser.push('\ndata: b\r')).toEqual([]);
    expect(parser.push('\n\r\n')).toEqual([{ data: 'a\nb' }]);
  });

  it('delivers a complete last event without its blank line, but drops an unterminated line', () => {
    const complete = new SseParser();
    complete.push('data: [DONE]\n');
    expect(complete.end()).toEqual([{ data: '[DONE]' }]);

    const cut = new SseParser();
    cut.push('data: {"choices":[{"del');
    expect(cut.end()).toEqual([]);
  });

  it('skips events with no data and treats a colon-less line as a field name', () => {
    expect(parseInPieces(['event: ping\n\ndata:\n\ndata\ndata: x\n\n'])).toEqual([{ data: '\nx' }]);
  });
});

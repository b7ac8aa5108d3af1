/**
 * An incremental Server-Sent-Events parser (the WHATWG "event stream" rules, minus `id`/`retry`,
 * which a one-shot completion stream has no use for). Pure: text in, events out.
 */

export interface SseEvent {
  /** The `event:` field; absent for plain `data:` events, which is all OpenAI sends. */
  event?: string;
  data: string;
}

export class SseParser {
  private partial = '';
  // A chunk may end between "\r" and "\n": remember the "\r" so the "\n" is not a second line end.
  private skipLeadingLf = false;
  private data: string[] = [];
  private eventName: string | undefined;

  /** Feeds the next piece of text; returns the events it completed, in order. */
  push(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    let text = chunk;
    if (this.skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLeadingLf = false;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const line = this.partial + text.slice(start, i);
      this.partial = '';
      if (ch === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
      this.line(line, out);
    }
    this.partial += text.slice(start);
    return out;
  }

  /**
   * The stream ended. An event whose lines all arrived but whose blank line did not is still
   * delivered (servers often close right after their last line); an unterminated last line is
   * dropped, as it may be cut mid-way.
   */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    this.partial = '';
    this.skipLeadingLf = false;
    this.dispatch(out);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventName = value;
  }

  private dispatch(out: SseEvent[]): void {
    const eventName = this.eventName;
    this.eventName = undefined;
    const data = this.data.join('\n');
    this.data = [];
    // As the standard says: an event with no data (or one empty data line) is not delivered.
    if (data === '') return;
    out.push(eventName === undefined || eventName === '' ? { data } : { event: eventName, data });
  }
}

/**
 * What read_file shows of the lines the sandbox sent (from line `first` on, at most one byte
 * over the limit): cut to the limit at a line's end (inside the line only when one line is
 * longer than the limit), and a note saying which lines were shown, of how many, and where to
 * read on. A file shown whole gets no note. Pure.
 */
export function readWindow(content: string, f: { first: number; lines: number; size: number; limitBytes: number }): string {
  if (content === '' && f.first > 1) return `[line ${f.first} is past the end: the file has ${f.lines} lines]`;
  let text = content;
  const bytes = Buffer.from(content);
  const cut = bytes.length > f.limitBytes;
  if (cut) {
    const head = bytes.subarray(0, f.limitBytes);
    const end = head.lastIndexOf(0x0a);
    // A line longer than the whole limit is cut inside it; otherwise at the last whole line.
    text = (end >= 0 ? head.subarray(0, end + 1) : head).toString('utf8').replace(/\uFFFD+$/, '');
  }
  const got = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const last = f.first + got - 1;
  const more = cut || last < f.lines;
  if (!more) return text;
  const partial = cut && !text.endsWith('\n');
  const shown = partial ? `the first ${Buffer.byteLength(text)} bytes of line ${last}` : `lines ${f.first}–${last}`;
  const next = last + 1;
  const why = cut ? ` (a read returns at most ${f.limitBytes} bytes)` : '';
  const onward = next <= f.lines ? ` Read on with offset ${next}.` : '';
  return `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}[shown: ${shown} of ${f.lines} lines, ${f.size} bytes in all${why}; the rest was left out.${onward}]`;
}

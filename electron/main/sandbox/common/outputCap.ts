/**
 * Keeps the head and the tail of a command's output within a byte budget, counting the total.
 * Pure state machine: feed chunks, then read the result.
 */
export class OutputCap {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  constructor(
    private readonly headLimit: number,
    private readonly tailLimit: number,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = rest.subarray(0, this.headLimit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  get truncated(): boolean {
    return this.total > this.headLimit + this.tailLimit;
  }

  text(): string {
    const headBytes = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (!this.truncated) return Buffer.concat([headBytes, tail]).toString('utf8');
    // Cut on character boundaries, so neither side ends in half a UTF-8 character.
    const head = headBytes.subarray(0, utf8Boundary(headBytes, headBytes.length));
    tail = tail.subarray(tail.length - this.tailLimit);
    tail = tail.subarray(utf8Boundary(tail, 0));
    const omitted = this.total - head.length - tail.length;
    return `${head.toString('utf8')}\n[… ${omitted} bytes omitted of ${this.total} …]\n${tail.toString('utf8')}`;
  }
}

/** The nearest offset at or after `from` (or, from the end, at or before it) that starts a character. */
function utf8Boundary(buf: Buffer, from: number): number {
  const isContinuation = (i: number) => ((buf[i] ?? 0) & 0xc0) === 0x80;
  if (from === 0) {
    let i = 0;
    while (i < buf.length && i < 4 && isContinuation(i)) i++;
    return i;
  }
  // Step back over a lead byte whose character runs past the end.
  let i = from;
  let back = 0;
  while (i > 0 && back < 4 && isContinuation(i - 1)) {
    i--;
    back++;
  }
  if (i === 0) return from;
  const lead = buf[i - 1] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need === back + 1 ? from : i - 1;
}

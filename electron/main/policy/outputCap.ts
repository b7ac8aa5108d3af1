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
    const head = Buffer.concat(this.head).toString('utf8');
    let tail = Buffer.concat(this.tail);
    if (!this.truncated) return head + tail.toString('utf8');
    tail = tail.subarray(tail.length - this.tailLimit);
    const omitted = this.total - this.headBytes - tail.length;
    return `${head}\n[… ${omitted} bytes omitted of ${this.total} …]\n${tail.toString('utf8')}`;
  }
}

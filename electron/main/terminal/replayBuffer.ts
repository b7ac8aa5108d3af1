/** The last N characters of a terminal's output, to repaint it when its chat is shown again. */
export class ReplayBuffer {
  private chunks: string[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.size -= (this.chunks.shift() as string).length;
    }
  }

  /** At most `limit` characters; a cut is moved past the next newline so the screen starts clean. */
  text(): string {
    const all = this.chunks.join('');
    if (all.length <= this.limit) return all;
    const cut = all.slice(all.length - this.limit);
    const nl = cut.indexOf('\n');
    return nl >= 0 && nl < 4096 ? cut.slice(nl + 1) : cut;
  }
}

/**
 * The size of a terminal that several views show at once (the same chat in two windows): the
 * smallest width and the smallest height among them, as tmux sizes a window to its smallest
 * client. One shell has one size; sized to the last view that asked, a wider view's lines broke
 * in a narrower one and the other way round, and full-screen programs drew for the wrong screen.
 * At the smallest, every view shows every line whole, the wider ones with room to spare.
 */
export interface TerminalSize {
  cols: number;
  rows: number;
}

/** A caller that is not a connected client: the desktop window's own calls, tests. */
const LOCAL_VIEW = 'local';

export class ViewSizes {
  private readonly byView = new Map<string, TerminalSize>();
  private current: TerminalSize | null = null;

  /** One view's size: the terminal's new size when that changes it, else null. */
  set(view: string | null, size: TerminalSize): TerminalSize | null {
    this.byView.set(view ?? LOCAL_VIEW, { cols: size.cols, rows: size.rows });
    return this.settle();
  }

  /** A view went away: the terminal's new size when the others let it grow, else null. */
  remove(view: string): TerminalSize | null {
    return this.byView.delete(view) ? this.settle() : null;
  }

  private settle(): TerminalSize | null {
    if (this.byView.size === 0) return null;
    let cols = Infinity;
    let rows = Infinity;
    for (const s of this.byView.values()) {
      cols = Math.min(cols, s.cols);
      rows = Math.min(rows, s.rows);
    }
    if (this.current?.cols === cols && this.current.rows === rows) return null;
    this.current = { cols, rows };
    return this.current;
  }
}

import { describe, expect, it } from 'vitest';
import { parseProcessList } from './terminalProcesses.js';

describe('parseProcessList', () => {
  it("keeps each terminal's processes but not its shell, in pid order", () => {
    const out = ['t1\t12\t0\tbash -l ', 't1\t40\t12\tvim notes.txt ', 't2\t31\t0\tsh -l ', 't2\t33\t31\tsleep 600 ', 't1\t41\t40\tsh -c make '].join('\n');
    expect(parseProcessList(out)).toEqual([
      { terminalId: 't2', pid: 33, command: 'sleep 600' },
      { terminalId: 't1', pid: 40, command: 'vim notes.txt' },
      { terminalId: 't1', pid: 41, command: 'sh -c make' },
    ]);
  });

  it('skips lines it cannot read (a process that ended mid-listing, noise)', () => {
    expect(parseProcessList('garbage\nt1\tx\t1\tls\nt1\t5\t1\t\n\n')).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { NO_OTHER_PROCESS, noOtherProcess, splitPortsEpilogue, withPortsEpilogue } from './portsEpilogue.js';

const M = '__berth_ports_0123abcd';

describe('the listening-ports reading after an agent command', () => {
  it('takes the reading off the output, leaving what the command printed', () => {
    const out = `hello\nworld\n\n${M}\n  sl  local_address\n   0: 00000000:1F40 00000000:0000 0A\n${M}\n`;
    expect(splitPortsEpilogue(out, M)).toEqual({ output: 'hello\nworld\n', listing: '  sl  local_address\n   0: 00000000:1F40 00000000:0000 0A\n' });
    // A command that printed nothing, and one whose last line had no newline.
    expect(splitPortsEpilogue(`\n${M}\nT\n${M}\n`, M)).toEqual({ output: '', listing: 'T\n' });
    expect(splitPortsEpilogue(`no newline\n${M}\n${M}\n`, M)).toEqual({ output: 'no newline', listing: '' });
  });

  it('leaves the output whole when no whole reading is there (the command exited itself, or the cap cut it)', () => {
    expect(splitPortsEpilogue('plain output\n', M)).toEqual({ output: 'plain output\n', listing: null });
    expect(splitPortsEpilogue(`x\n\n${M}\n  sl  local`, M)).toEqual({ output: `x\n\n${M}\n  sl  local`, listing: null });
    expect(splitPortsEpilogue(`x\n[… cut …]\n   0: 0A\n${M}\n`, M)).toEqual({ output: `x\n[… cut …]\n   0: 0A\n${M}\n`, listing: null });
  });

  it('reads the tables with the shell’s own builtins, starting no process', () => {
    expect(withPortsEpilogue('true', M)).not.toMatch(/\bcat\b/);
  });

  it('reads the tables only when a process other than init, the shell and the command’s subshell is left', () => {
    const e = withPortsEpilogue('true', M);
    expect(e).toContain('for __berth_p in /proc/[0-9]*');
    expect(e).toMatch(/if \[ -n "\$__berth_o" \]; then for __f in \/proc\/net\/tcp .* else printf '%s\\n' '__berth_no_other_process'; fi/);
    expect(noOtherProcess(`${NO_OTHER_PROCESS}\n`)).toBe(true);
    expect(noOtherProcess('')).toBe(false);
    expect(noOtherProcess(null)).toBe(false);
  });

  it('keeps the command’s exit status', () => {
    expect(withPortsEpilogue('make test', M)).toMatch(/^make test\n__berth_rc=\$\?; .*exit \$__berth_rc$/);
  });
});

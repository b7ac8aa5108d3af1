/** What a core's terminals printed and why they ended, as the events arrive: for integration tests. */
import type { BerthCore } from '../../electron/main/core.js';

export interface TerminalScreens {
  /** Everything the terminal printed so far. */
  screen(terminalId: string): string;
  /** terminal id → the reason it ended. */
  exits: Map<string, string>;
  dispose(): void;
}

export function watchTerminals(core: BerthCore): TerminalScreens {
  const output = new Map<string, string>();
  const exits = new Map<string, string>();
  const sub = core.onEvent((event, payload) => {
    if (event === 'terminal.data') {
      const p = payload as { terminalId: string; data: string };
      output.set(p.terminalId, (output.get(p.terminalId) ?? '') + p.data);
    }
    if (event === 'terminal.exit') {
      const p = payload as { terminalId: string; reason: string };
      exits.set(p.terminalId, p.reason);
    }
  });
  return { screen: (id) => output.get(id) ?? '', exits, dispose: () => sub.dispose() };
}

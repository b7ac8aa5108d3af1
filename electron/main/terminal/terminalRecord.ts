/**
 * One open terminal as terminalService.ts keeps it: its view, where its shell runs, and what its
 * screens, its flow control and a restart in place need.
 */
import type { TerminalView } from '../../../shared/contract.js';
import type { OutputJoiner } from '../../../shared/outputJoiner.js';
import type { TtyProcess } from '../engine/dockerEngine.js';
import type { Disposable } from '../events.js';
import type { FlowControl } from './flowControl.js';
import { ReplayBuffer } from './replayBuffer.js';
import { ViewSizes } from './common/viewSizes.js';

export interface Terminal {
  view: TerminalView;
  key: string;
  containerId: string;
  /** The uid:gid its shell runs as. */
  user: string;
  /** Keeps the container from idling while the terminal runs; disposed (once) when it ends. */
  hold: Disposable;
  process: TtyProcess | null;
  replay: ReplayBuffer;
  /** Joins output that follows closely into one event; the replay holds only what was sent. */
  output: OutputJoiner | null;
  /** One account per connected client: the slowest screen sets the pace. */
  flows: Map<string, FlowControl>;
  /** Each view's size: the smallest sets the shell's. */
  sizes: ViewSizes;
  paused: boolean;
  /** Between its old container and the new one (restartForChat): the old one going is expected. */
  restarting: boolean;
  /** What was typed while it was restarting: sent to the new shell once it runs. */
  typedAhead: string;
  /** Typed since the last line was entered (common/typedLine): the shell holds it unrun. */
  typedLine: string;
  /** Bumped by each input: what was typed while the shell's processes were being looked up. */
  inputs: number;
}

export function newTerminal(view: TerminalView, replayChars: number): Terminal {
  return {
    view,
    key: '',
    containerId: '',
    user: '',
    // Until it has started, a terminal holds nothing: ending it then lets go of nothing.
    hold: { dispose: () => undefined },
    process: null,
    replay: new ReplayBuffer(replayChars),
    output: null,
    flows: new Map(),
    sizes: new ViewSizes(),
    paused: false,
    restarting: false,
    typedAhead: '',
    typedLine: '',
    inputs: 0,
  };
}

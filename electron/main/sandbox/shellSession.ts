/**
 * One long-lived shell in a container, attached through its main process's stdio. Commands
 * are sent as function calls (see policy/shellProtocol.ts) one at a time; a warm command
 * costs a fork in the container, not a new `docker exec`.
 */
import { randomBytes } from 'node:crypto';
import { BerthError } from '../../../shared/errors.js';
import type { AttachedStreams } from '../engine/dockerEngine.js';
import { OutputCap } from './common/outputCap.js';
import { SHELL_PRELUDE, commandLine, parseEndLine } from '../policy/shellProtocol.js';

export type Signal = 'INT' | 'TERM' | 'KILL';

/** Signals the process tree of the command numbered `serial`, if it is still the one running. */
export type SignalCommand = (signal: Signal, serial: number) => Promise<void>;

export interface RunRequest {
  command: string;
  cwd: string;
  fallback: string;
  timeoutMs: number;
  headBytes: number;
  tailBytes: number;
  /** Who runs the command (a task's qualified id); only that owner may interrupt it. */
  owner?: string;
}

export interface RunOutcome {
  exitCode: number;
  output: string;
  outputBytes: number;
  truncated: boolean;
  timedOut: boolean;
  interrupted: boolean;
  /** The cwd the command ended in, or null when it did not end normally. */
  cwd: string | null;
  durationMs: number;
}

interface Pending {
  marker: string;
  serial: number;
  owner: string | undefined;
  interrupted: boolean;
  buffer: Buffer;
  cap: OutputCap;
  resolve(end: { exitCode: number; cwd: string | null }): void;
  reject(error: Error): void;
}

/** How long a command gets to die after TERM before KILL, and after KILL before the shell is abandoned. */
const TERM_GRACE_MS = 2000;
const KILL_GRACE_MS = 5000;

export class ShellSession {
  private pending: Pending | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private closedWith: BerthError | null = null;
  private stderrTail = '';
  private serial = 0;

  private constructor(
    private readonly streams: AttachedStreams,
    private readonly signalCommand: SignalCommand,
    private readonly now: () => number,
  ) {
    streams.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
    streams.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    void streams.ended.then(() =>
      this.fail(
        new BerthError('container_vanished', 'The sandbox stopped while a command was running (the container was stopped or removed, or Docker restarted).', {
          hint: 'Run the command again: Berth starts the sandbox again.',
        }),
      ),
    );
  }

  /** Sends the prelude and waits for the shell to answer a no-op, which also drains stale output. */
  static async open(streams: AttachedStreams, signalCommand: SignalCommand, now: () => number): Promise<ShellSession> {
    const session = new ShellSession(streams, signalCommand, now);
    streams.stdin.write(SHELL_PRELUDE);
    const sync = await session.run({ command: ':', cwd: '/', fallback: '/', timeoutMs: 30_000, headBytes: 1024, tailBytes: 1024 });
    if (sync.timedOut || sync.exitCode !== 0) {
      session.close();
      throw new BerthError('shell_failed', "The sandbox's shell did not answer.", { hint: 'Try again; Berth restarts the sandbox.' });
    }
    return session;
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  /** Why the session ended, once it has. */
  get failure(): BerthError | null {
    return this.closedWith;
  }

  /** What the container's shell last wrote to stderr; explains a shell that died at start. */
  get diagnostics(): string {
    return this.stderrTail.trim();
  }

  run(request: RunRequest): Promise<RunOutcome> {
    const result = this.tail.then(() => this.runNow(request));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Stops the running command's process tree (TERM, then KILL after a grace period); the
   * shell itself lives on. TERM, not INT: a non-interactive shell's background jobs ignore INT.
   */
  async interrupt(owner?: string): Promise<boolean> {
    const p = this.pending;
    if (!p || p.owner !== owner) return false;
    p.interrupted = true;
    await this.signalCommand('TERM', p.serial);
    this.killLater(p.serial);
    return true;
  }

  /**
   * KILL after TERM's grace, even once the command has ended: its shell dies at TERM, while
   * processes it started that ignore TERM may live on (the signal script remembers them).
   */
  private killLater(serial: number): void {
    setTimeout(() => void this.signalCommand('KILL', serial).catch(() => undefined), TERM_GRACE_MS).unref();
  }

  close(): void {
    this.fail(new BerthError('container_vanished', 'The sandbox was stopped.', { hint: 'Run the command again to start it.' }));
    this.streams.close();
  }

  private async runNow(request: RunRequest): Promise<RunOutcome> {
    if (this.closedWith) throw this.closedWith;
    const started = this.now();
    const marker = `__BERTH_END_${randomBytes(12).toString('hex')}__`;
    const serial = ++this.serial;
    const cap = new OutputCap(request.headBytes, request.tailBytes);
    let timedOut = false;
    const ended = new Promise<{ exitCode: number; cwd: string | null }>((resolve, reject) => {
      this.pending = { marker, serial, owner: request.owner, interrupted: false, buffer: Buffer.alloc(0), cap, resolve, reject };
    });
    const timers: NodeJS.Timeout[] = [];
    timers.push(
      setTimeout(() => {
        timedOut = true;
        void this.signalCommand('TERM', serial).catch(() => undefined);
        this.killLater(serial);
        timers.push(
          setTimeout(() => {
            // The shell itself does not answer: abandon it so the next command gets a fresh one.
            this.fail(new BerthError('shell_failed', 'The sandbox shell stopped answering after a command timed out.', { hint: 'Run the command again.' }));
            this.streams.close();
          }, TERM_GRACE_MS + KILL_GRACE_MS),
        );
      }, request.timeoutMs),
    );
    const pending = this.pending as Pending | null;
    this.streams.stdin.write(commandLine(marker, request.cwd, request.fallback, request.command, serial));
    try {
      const end = await ended.catch((error: unknown) => {
        if (timedOut) return { exitCode: 124, cwd: null };
        throw error;
      });
      const interrupted = !timedOut && (pending?.interrupted ?? false);
      return {
        exitCode: timedOut ? 124 : interrupted ? 130 : end.exitCode,
        output: cap.text(),
        outputBytes: cap.total,
        truncated: cap.truncated,
        timedOut,
        interrupted,
        cwd: timedOut || interrupted ? null : end.cwd,
        durationMs: this.now() - started,
      };
    } finally {
      for (const t of timers) clearTimeout(t);
      this.pending = null;
    }
  }

  /**
   * Everything before the command's end line is its output, fed to the cap as it arrives:
   * Berth never holds more than one end line's worth of bytes, whatever the command prints.
   */
  private onStdout(chunk: Buffer): void {
    const p = this.pending;
    if (!p) return; // Output of a background job that outlived its command.
    p.buffer = p.buffer.length ? Buffer.concat([p.buffer, chunk]) : chunk;
    for (;;) {
      const at = p.buffer.indexOf(p.marker);
      if (at < 0) {
        // Keep just enough to find a marker split across chunks.
        const keep = p.marker.length - 1;
        if (p.buffer.length > keep) {
          p.cap.push(p.buffer.subarray(0, p.buffer.length - keep));
          p.buffer = p.buffer.subarray(p.buffer.length - keep);
        }
        return;
      }
      if (at > 0) {
        p.cap.push(p.buffer.subarray(0, at));
        p.buffer = p.buffer.subarray(at);
      }
      const end = parseEndLine(p.buffer, p.marker);
      if (end === 'incomplete') return;
      if (end) {
        p.resolve({ exitCode: end.exitCode, cwd: end.cwd });
        return;
      }
      // Not an end line after all: it is output.
      p.cap.push(p.buffer.subarray(0, 1));
      p.buffer = p.buffer.subarray(1);
    }
  }

  private fail(error: BerthError): void {
    if (this.closedWith) return;
    this.closedWith = error;
    this.pending?.reject(error);
  }
}

/**
 * The 'local' backend: commands run directly on this computer with the user's permissions.
 * There is no sandbox boundary at all; profiles say so plainly.
 */
import { spawn } from 'node:child_process';
import { OutputCap } from './common/outputCap.js';
import type { RunOutcome } from './shellSession.js';

export interface LocalRunRequest {
  command: string;
  cwd: string;
  timeoutMs: number;
  headBytes: number;
  tailBytes: number;
}

export function runLocal(req: LocalRunRequest): Promise<RunOutcome> {
  const started = Date.now();
  const cap = new OutputCap(req.headBytes, req.tailBytes);
  // fd 3 carries the cwd the command ended in, apart from its output.
  const script = `${req.command}\n__berth_rc=$?\npwd >&3\nexit $__berth_rc`;
  const child = spawn('/bin/sh', ['-c', script], { cwd: req.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let cwdText = '';
  child.stdout?.on('data', (c: Buffer) => cap.push(c));
  child.stderr?.on('data', (c: Buffer) => cap.push(c));
  (child.stdio[3] as NodeJS.ReadableStream | null)?.on('data', (c: Buffer) => (cwdText += c.toString('utf8')));
  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), 2000).unref();
  }, req.timeoutMs);
  return new Promise((resolve) => {
    const finish = (code: number | null) => {
      clearTimeout(timer);
      resolve({
        exitCode: timedOut ? 124 : (code ?? 1),
        output: cap.text(),
        outputBytes: cap.total,
        truncated: cap.truncated,
        timedOut,
        interrupted: false,
        cwd: timedOut ? null : cwdText.trim() || null,
        durationMs: Date.now() - started,
      });
    };
    child.on('error', (error) => {
      cap.push(Buffer.from(`berth: could not start the command here: ${error.message}\n`));
      finish(127);
    });
    child.on('close', (code) => finish(code));
  });
}

/**
 * A project environment's postStartCommand at each start of the chat's container: the devcontainer
 * spec runs it "each time the container is successfully started" (containers.dev, implementors'
 * json_reference), so a sandbox started again after an idle stop, Berth's quit or a recreate
 * runs it before the command or terminal that started it. It runs in the sandbox's own shell,
 * as the sandbox user, in the environment's start folder. A failure does not stop the sandbox:
 * the command that started it is told, with the output's end, once.
 */
import type { ShellSession } from './shellSession.js';
import type { SandboxRequest } from './sandboxTypes.js';

/** As long as a lifecycle command may take when the environment is prepared (environment/). */
const START_COMMAND_TIMEOUT_MS = 30 * 60_000;
const OUTPUT_BYTES = 16 * 1024;

/** Runs the request's start command, if any, in the freshly started container; what the starting command is told. */
export async function runStartCommand(session: ShellSession, req: SandboxRequest, home: string): Promise<string[]> {
  const start = req.postStart;
  if (!start) return [];
  req.onProgress('starting', `Running postStartCommand of ${start.source}…`, null);
  const out = await session.run({ command: start.script, cwd: req.workingDir, fallback: home, timeoutMs: START_COMMAND_TIMEOUT_MS, headBytes: OUTPUT_BYTES, tailBytes: OUTPUT_BYTES });
  if (out.exitCode === 0) return [];
  return [
    `The postStartCommand of ${start.source} failed when the sandbox started (exit code ${out.exitCode}${out.timedOut ? ', stopped after 30 minutes' : ''}); the sandbox runs without it. Its output ended with:\n${out.output.slice(-2000)}`,
  ];
}

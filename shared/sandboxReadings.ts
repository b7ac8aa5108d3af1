/** What a sandbox reports back: a command's result, its use against its limits, its disk. Shapes only. */
import { z } from 'zod';

export const ExecResult = z.object({
  exitCode: z.number().int(),
  /** Combined stdout and stderr; when capped, the head and the tail with a marker between. */
  output: z.string(),
  /** Total bytes the command printed, capped or not. */
  outputBytes: z.number().int(),
  truncated: z.boolean(),
  timedOut: z.boolean(),
  /** The working directory after the command, inside the sandbox. */
  cwd: z.string(),
  durationMs: z.number(),
  /** Things the user should know: a recreated container, a missing cwd, a timeout. */
  notices: z.array(z.string()),
});
export type ExecResult = z.infer<typeof ExecResult>;

/** One reading of a sandbox's use (engine stats stream), each figure beside its limit. */
export const SandboxStatsSample = z.object({
  at: z.number(),
  /** Cores in use since the previous reading (0.5: half a core); null on the first reading. */
  cpus: z.number().nullable(),
  memoryBytes: z.number(),
  memoryLimitBytes: z.number().nullable(),
  pids: z.number().int(),
  pidsLimit: z.number().int().nullable(),
});
export type SandboxStatsSample = z.infer<typeof SandboxStatsSample>;

/** What a sandbox keeps on disk: the chat's home folder and the container's writable layer. */
export const SandboxUsage = z.object({
  chatId: z.string(),
  /** Null when the chat has no home yet (its sandbox never started). */
  homeBytes: z.number().nullable(),
  /** True when the home has more files than Berth counts: homeBytes is then a lower bound. */
  homeCapped: z.boolean(),
  /** Null when there is no container. */
  writableLayerBytes: z.number().nullable(),
});
export type SandboxUsage = z.infer<typeof SandboxUsage>;

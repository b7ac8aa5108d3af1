/**
 * Quitting: the first 'before-quit' is held back until the core is disposed (which stops or
 * keeps containers per profile retention), then the app exits. Later quit requests while that
 * runs are held back too; a dispose that never settles is cut short so quitting cannot hang.
 */
export const QUIT_TIMEOUT_MS = 30_000;

export interface QuitGuardOptions {
  dispose: () => Promise<void>;
  exit: (code: number) => void;
  log?: (line: string) => void;
  timeoutMs?: number;
}

export interface QuitGuard {
  /** The app's 'before-quit' listener. */
  onBeforeQuit(event: { preventDefault(): void }): void;
}

export function createQuitGuard(options: QuitGuardOptions): QuitGuard {
  const { dispose, exit, log } = options;
  const timeoutMs = options.timeoutMs ?? QUIT_TIMEOUT_MS;
  let state: 'running' | 'stopping' | 'done' = 'running';

  return {
    onBeforeQuit(event) {
      if (state === 'done') return;
      event.preventDefault();
      if (state === 'stopping') return;
      state = 'stopping';
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          log?.(`Berth stopped waiting for its sandboxes after ${Math.round(timeoutMs / 1000)} s and quit anyway.`);
          resolve();
        }, timeoutMs);
      });
      const disposed = Promise.resolve()
        .then(dispose)
        .catch((error: unknown) => log?.(`Stopping Berth's sandboxes failed: ${error instanceof Error ? error.message : String(error)}`));
      void Promise.race([disposed, timeout]).then(() => {
        clearTimeout(timer);
        state = 'done';
        exit(0);
      });
    },
  };
}

/**
 * Ctrl-C in a benchmark: the first one finishes the current step and cleans up; a second one,
 * a moment later, aborts. (tsx relays the terminal's SIGINT, so one Ctrl-C can arrive twice.)
 */
let interrupted = false;
let firstSigint = 0;

export function watchInterrupt(): void {
  process.on('SIGINT', () => {
    if (!interrupted) {
      interrupted = true;
      firstSigint = Date.now();
      console.error('\ninterrupted: finishing the current step, then cleaning up (Ctrl-C again to abort without cleanup)');
    } else if (Date.now() - firstSigint > 1000) {
      process.exit(130);
    }
  });
}

export function wasInterrupted(): boolean {
  return interrupted;
}

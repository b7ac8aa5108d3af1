/** Resources that must be released, as disposables (after VS Code's base/common/lifecycle.ts). */
import type { Disposable } from '../events.js';

/**
 * A disposable that runs `release` on its first dispose() only: a lease handed to a caller
 * cannot be released twice, and whoever holds it needs no key or counter to release it.
 */
export function toDisposable(release: () => void): Disposable {
  let released = false;
  return {
    dispose: () => {
      if (released) return;
      released = true;
      release();
    },
  };
}

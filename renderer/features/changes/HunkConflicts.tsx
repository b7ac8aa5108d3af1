/** Hunks of an apply of chosen lines that do not fit the user's folder now: nothing was written; each with both sides, and the way to resolve its file. */
import type { HunkConflict } from '../../../shared/contract';

const WHY: Record<HunkConflict['why'], string> = {
  changed: 'these lines changed in your folder',
  ambiguous: 'these lines appear more than once in your folder now',
  gone: 'the file was deleted or created in your folder',
};

export function HunkConflicts({ message, conflicts, onResolve, onDismiss }: { message: string; conflicts: readonly HunkConflict[]; onResolve(path: string): void; onDismiss(): void }) {
  return (
    <div role="alert" className="alert" aria-label="Nothing was applied">
      <div className="alert-body">
        <p className="alert-message">{message}</p>
        <ul className="conflict-list">
          {conflicts.map((c, i) => (
            <li key={`${c.path}:${i}`}>
              <code>{c.path}</code>: {WHY[c.why]} (from line {c.mineStart}).
              <div className="three-way-sides">
                <figure className="three-way-side">
                  <figcaption>Your folder now</figcaption>
                  <pre>{c.mine.join('\n')}</pre>
                </figure>
                <figure className="three-way-side">
                  <figcaption>The chat&apos;s lines</figcaption>
                  <pre>{c.chat.join('\n')}</pre>
                </figure>
              </div>
              <button type="button" className="small" onClick={() => onResolve(c.path)}>
                Resolve {c.path}…
              </button>
            </li>
          ))}
        </ul>
      </div>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}

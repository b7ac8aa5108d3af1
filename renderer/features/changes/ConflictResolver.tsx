/**
 * A file both the user and the chat changed, three ways (review.conflict): each conflicting
 * region shows the base the copy started from, the user's folder now and the chat's copy, with
 * take mine / take the chat's / edit; "Apply resolution" writes the result into the folder and
 * the copy (review.resolve). Regions git merged by itself are shown as they are.
 */
import { useEffect, useId, useState } from 'react';
import type { ConflictChoice, MergeSegment } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions } from '../../services/context';
import { reviewActions } from './actions';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';

type Pick = 'mine' | 'chat' | 'edit';

function Side({ title, lines }: { title: string; lines: readonly string[] }) {
  return (
    <figure className="three-way-side">
      <figcaption>{title}</figcaption>
      <pre>{lines.length ? lines.join('\n') : '(no lines)'}</pre>
    </figure>
  );
}

export function ConflictResolver({ chatId, hostPath, path, onClose, onDone }: { chatId: string; hostPath: string; path: string; onClose(): void; onDone(message: string): void }) {
  const review = useActions(reviewActions);
  const id = useId();
  const [segments, setSegments] = useState<MergeSegment[] | null>(null);
  const [picks, setPicks] = useState<Pick[]>([]);
  const [edits, setEdits] = useState<string[]>([]);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    review
      .conflict({ chatId, hostPath, path })
      .then((r) => {
        if (!live) return;
        setSegments(r.segments);
        const conflicts = r.segments.filter((s) => s.kind === 'conflict');
        setPicks(conflicts.map(() => 'mine'));
        setEdits(conflicts.map((s) => (s.kind === 'conflict' ? s.mine.join('\n') : '')));
      })
      .catch((e: unknown) => live && setError(errorInfo(e)));
    return () => {
      live = false;
    };
  }, [review, chatId, hostPath, path]);

  const apply = async () => {
    setBusy(true);
    setError(null);
    try {
      const choices: ConflictChoice[] = picks.map((p, i) => (p === 'edit' ? { text: edits[i] ?? '' } : p));
      const r = await review.resolve({ chatId, hostPath, path, choices });
      if (r.ok) onDone(r.message);
      else setError({ code: 'conflict', message: r.message, hint: 'Reload the conflict and choose again.' });
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  let n = -1;
  return (
    <Dialog title={`Resolve ${path}`} onClose={onClose} className="three-way-dialog" description="Changed both in your folder and by the chat. Choose for each conflicting region.">
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {segments === null && !error && <p className="muted">Loading the three versions…</p>}
      {segments?.map((s, i) => {
        if (s.kind === 'same') return <pre key={i} className="three-way-same">{s.lines.join('\n')}</pre>;
        const k = ++n;
        const pick = picks[k] ?? 'mine';
        return (
          <fieldset key={i} className="three-way-conflict">
            <legend>Conflict {k + 1}</legend>
            <div className="three-way-sides">
              <Side title="Base (the copy started from)" lines={s.base} />
              <Side title="Your folder now" lines={s.mine} />
              <Side title="The chat's copy" lines={s.chat} />
            </div>
            <div role="radiogroup" aria-label={`Resolution of conflict ${k + 1}`} className="changes-toolbar">
              {(['mine', 'chat', 'edit'] as const).map((p) => (
                <label key={p}>
                  <input type="radio" name={`${id}-${k}`} checked={pick === p} onChange={() => setPicks((was) => was.map((x, j) => (j === k ? p : x)))} />{' '}
                  {p === 'mine' ? 'Take mine' : p === 'chat' ? "Take the chat's" : 'Edit'}
                </label>
              ))}
            </div>
            {pick === 'edit' && (
              <textarea
                aria-label={`Text of conflict ${k + 1}`}
                rows={Math.max(3, (edits[k] ?? '').split('\n').length)}
                value={edits[k] ?? ''}
                onChange={(e) => setEdits((was) => was.map((x, j) => (j === k ? e.target.value : x)))}
              />
            )}
          </fieldset>
        );
      })}
      <div className="dialog-buttons">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={busy || segments === null} onClick={() => void apply()}>
          Apply resolution
        </button>
      </div>
    </Dialog>
  );
}

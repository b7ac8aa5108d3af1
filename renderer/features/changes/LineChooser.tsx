/**
 * Choosing hunks and lines of one file's diff, to apply just those (review.applyLines) or to
 * comment on them (review.comment). One listbox of the file's lines, a group per hunk; a changed
 * line is an option (a context line is shown, never chosen). Mouse: click chooses or un-chooses a
 * line, shift-click the lines between. Keyboard: ↑/↓ move, Space chooses, Shift+↑/↓ extend.
 * A hunk's checkbox chooses all its lines. The file's open comments are listed under the lines,
 * and a line with one is marked.
 */
import { useId, useMemo, useState, type KeyboardEvent } from 'react';
import type { FileChange, ReviewComment } from '../../../shared/contract';
import { commentRange, hunkKeys, rangeKeys, rowsOf, step, toLines, toggle, type Row } from './lineChoice';

export interface LineChooserProps {
  file: FileChange;
  comments: readonly ReviewComment[];
  busy: boolean;
  onApply(lines: { removed: number[]; added: number[] }): void;
  onComment(range: { side: 'new' | 'old'; startLine: number; endLine: number }, body: string): Promise<boolean>;
  onCloseComment(id: string, action: 'resolve' | 'delete'): void;
}

function commentedKeys(rows: readonly Row[], comments: readonly ReviewComment[]): Set<string> {
  const keys = new Set<string>();
  for (const c of comments) {
    if (c.outdated) continue;
    for (const r of rows) {
      const n = c.side === 'new' ? r.line.newNo : r.line.oldNo;
      const onSide = c.side === 'new' ? r.line.kind !== '-' : r.line.kind !== '+';
      if (onSide && n !== null && n >= c.startLine && n <= c.endLine) keys.add(r.key);
    }
  }
  return keys;
}

export function LineChooser({ file, comments, busy, onApply, onComment, onCloseComment }: LineChooserProps) {
  const id = useId();
  const { hunks, rows } = useMemo(() => rowsOf(file.diff), [file.diff]);
  const [sel, setSel] = useState<ReadonlySet<string>>(new Set());
  const [active, setActive] = useState<string | null>(null);
  const [anchor, setAnchor] = useState<string | null>(null);
  const [writing, setWriting] = useState(false);
  const [body, setBody] = useState('');
  const marked = useMemo(() => commentedKeys(rows, comments), [rows, comments]);
  const range = commentRange(rows, sel);
  const optionId = (key: string) => `${id}-${key.replace(/[^0-9a-z+-]/gi, '_')}`;

  const choose = (key: string, shift: boolean) => {
    if (shift && anchor !== null) setSel((s) => toggle(s, rangeKeys(rows, anchor, key), true));
    else {
      setSel((s) => toggle(s, [key], !s.has(key)));
      setAnchor(key);
    }
    setActive(key);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = step(rows, active, e.key === 'ArrowDown' ? 1 : -1);
      if (next === null) return;
      if (e.shiftKey) {
        const from = anchor ?? active ?? next;
        setAnchor(from);
        setSel((s) => toggle(s, rangeKeys(rows, from, next), true));
      }
      setActive(next);
    } else if (e.key === ' ' && active !== null) {
      e.preventDefault();
      choose(active, false);
    }
  };

  const submit = async () => {
    if (!range || body.trim() === '') return;
    if (await onComment(range, body.trim())) {
      setBody('');
      setWriting(false);
      setSel(new Set());
    }
  };

  const count = sel.size;
  return (
    <div className="line-chooser">
      <ul className="hunk-list" aria-label="Hunks">
        {hunks.map((h, i) => {
          const keys = hunkKeys(rows, i);
          const all = keys.length > 0 && keys.every((k) => sel.has(k));
          return (
            <li key={`${h.oldStart},${h.newStart}`}>
              <label>
                <input type="checkbox" checked={all} onChange={(e) => setSel((s) => toggle(s, keys, e.target.checked))} /> Hunk {i + 1}{' '}
                <code>{`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`}</code>
              </label>
            </li>
          );
        })}
      </ul>
      <div
        role="listbox"
        aria-multiselectable="true"
        aria-label={`Lines of ${file.path}`}
        tabIndex={0}
        className="line-list"
        aria-activedescendant={active ? optionId(active) : undefined}
        onKeyDown={onKeyDown}
        onFocus={() => active === null && setActive(step(rows, null, 1))}
      >
        {hunks.map((h, i) => (
          <div role="group" key={`${h.oldStart},${h.newStart}`} aria-label={`Hunk ${i + 1}`}>
            {rows
              .filter((r) => r.hunk === i)
              .map((r) => {
                const isChange = r.line.kind !== ' ';
                const num = r.line.kind === '+' ? r.line.newNo : r.line.oldNo;
                return (
                  <div
                    key={r.key}
                    id={optionId(r.key)}
                    role="option"
                    aria-selected={isChange ? sel.has(r.key) : false}
                    aria-disabled={isChange ? undefined : true}
                    aria-label={`${r.line.kind === '+' ? 'added line' : r.line.kind === '-' ? 'removed line' : 'line'} ${num}: ${r.line.text}${marked.has(r.key) ? ' (commented)' : ''}`}
                    className={`line-row line-${r.line.kind === '+' ? 'add' : r.line.kind === '-' ? 'del' : 'ctx'}${r.key === active ? ' active' : ''}${marked.has(r.key) ? ' commented' : ''}`}
                    onClick={(e) => isChange && choose(r.key, e.shiftKey)}
                  >
                    <span className="line-no" aria-hidden="true">{num}</span>
                    <span className="line-sign" aria-hidden="true">{r.line.kind}</span>
                    <span className="line-text">{r.line.text}</span>
                    {marked.has(r.key) && (
                      <span className="line-mark" aria-hidden="true">
                        comment
                      </span>
                    )}
                  </div>
                );
              })}
          </div>
        ))}
      </div>
      <div className="changes-toolbar">
        <button type="button" className="primary" disabled={busy || count === 0} onClick={() => onApply(toLines(sel))}>
          Apply {count} selected {count === 1 ? 'line' : 'lines'}
        </button>
        <button type="button" disabled={busy || count === 0} onClick={() => setWriting(true)}>
          Comment on selected lines
        </button>
        <button type="button" disabled={count === 0} onClick={() => setSel(new Set())}>
          Clear selection
        </button>
      </div>
      {writing && range && (
        <div className="comment-form">
          <label htmlFor={`${id}-body`}>
            Comment on {range.startLine === range.endLine ? `line ${range.startLine}` : `lines ${range.startLine}-${range.endLine}`}
            {range.side === 'old' ? ' (removed)' : ''}
          </label>
          <textarea id={`${id}-body`} rows={3} value={body} onChange={(e) => setBody(e.target.value)} />
          <div className="changes-toolbar">
            <button type="button" className="primary" disabled={busy || body.trim() === ''} onClick={() => void submit()}>
              Add to review
            </button>
            <button type="button" onClick={() => setWriting(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {comments.length > 0 && (
        <ul className="comment-list" aria-label={`Comments on ${file.path}`}>
          {comments.map((c) => (
            <li key={c.id} className={c.outdated ? 'outdated' : undefined}>
              <p>
                <strong>{c.startLine === c.endLine ? `Line ${c.startLine}` : `Lines ${c.startLine}-${c.endLine}`}</strong>
                {c.side === 'old' && ' (removed)'} · {c.state === 'draft' ? 'draft' : c.state}
                {c.outdated && <span className="badge">outdated</span>}
              </p>
              <pre>{c.quote.join('\n')}</pre>
              <p>{c.body}</p>
              <button type="button" className="small" onClick={() => onCloseComment(c.id, c.state === 'draft' ? 'delete' : 'resolve')}>
                {c.state === 'draft' ? 'Delete' : 'Resolve'}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * One file's diff, unified or side by side (react-diff-view), syntax highlighted; "Binary file
 * changed" for a binary; a very large diff collapsed until the user asks for it.
 */
import 'react-diff-view/style/index.css';
import './changes.css';
import { memo, useMemo, useState } from 'react';
import { Diff, Hunk } from 'react-diff-view';
import { diffTokens, noContentNote, parseFileDiff } from './diffModel';

export type DiffLayout = 'unified' | 'split';

export interface FileDiffProps {
  path: string;
  /** The file's unified git diff; null when main did not send one (see `note`). */
  diff: string | null;
  binary?: boolean;
  /** Why there is no diff to show (too large to compute, …), from main. */
  note?: string | null;
  layout: DiffLayout;
}

export const FileDiff = memo(function FileDiff({ path, diff, binary = false, note = null, layout }: FileDiffProps) {
  const parsed = useMemo(() => parseFileDiff(diff, binary), [diff, binary]);
  const [expanded, setExpanded] = useState(false);
  const show = !parsed.large || expanded;
  const tokens = useMemo(() => (show ? diffTokens(parsed.hunks, path, parsed.lines) : null), [show, parsed, path]);

  if (parsed.binary) return <p className="diff-note">Binary file changed: no text diff to show.</p>;
  if (note) return <p className="diff-note">{note}</p>;
  if (!parsed.file || parsed.hunks.length === 0) return <p className="diff-note">{noContentNote(diff)}</p>;
  if (!show) {
    return (
      <div className="diff-note diff-collapsed">
        <p>
          Large diff collapsed: {parsed.lines.toLocaleString()} lines (+{parsed.additions.toLocaleString()} −{parsed.deletions.toLocaleString()}).
        </p>
        <button type="button" className="small" onClick={() => setExpanded(true)}>
          Show diff
        </button>
      </div>
    );
  }
  return (
    <div className="file-diff" aria-label={`Diff of ${path}`} role="region">
      <Diff viewType={layout} diffType={parsed.file.type} hunks={parsed.hunks} tokens={tokens}>
        {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
      </Diff>
    </div>
  );
});

/** One line under a Review-mode attachment: what its copy started from and what it left out. */
import { useId, useState } from 'react';
import type { ReviewCopyInfo } from '../../../shared/contract';

/** Up to this many left-out files are named in the line; more are a count with a list to open (the header stays short). */
const NAMED_INLINE = 2;

export function ReviewCopySummary({ info }: { info: ReviewCopyInfo }) {
  const [listed, setListed] = useState(false);
  const listId = useId();
  const start =
    info.kind === 'git'
      ? `Copy of ${info.baseCommit ? `HEAD ${info.baseCommit.slice(0, 7)}` : 'a repository with no commit yet'}` +
        (info.uncommittedCount > 0 ? ` plus your ${info.uncommittedCount} uncommitted change${info.uncommittedCount === 1 ? '' : 's'}` : ' (no uncommitted changes)') +
        (info.branch ? `, on branch ${info.branch}` : '')
      : 'Copy of the folder';
  const holds = info.contents.ignored ? 'ignored files included' : 'ignored files left out';
  const secrets = info.excludedSecrets;
  const howToInclude = '(attach again naming them to include them).';
  return (
    <>
      <p className="review-copy muted">
        {start}; {info.fileCount.toLocaleString()} file{info.fileCount === 1 ? '' : 's'}, {holds}.
        {secrets.length > 0 && secrets.length <= NAMED_INLINE && (
          <>
            {' '}
            Left out as secret-looking: <code>{secrets.join(', ')}</code> {howToInclude}
          </>
        )}
        {secrets.length > NAMED_INLINE && (
          <>
            {' '}
            {secrets.length.toLocaleString()} secret-looking files left out {howToInclude}{' '}
            <button type="button" className="link-button" aria-expanded={listed} aria-controls={listId} onClick={() => setListed((l) => !l)}>
              {listed ? 'Hide them' : 'Show them'}
            </button>
          </>
        )}
      </p>
      {listed && secrets.length > NAMED_INLINE && (
        <ul id={listId} className="review-secrets muted" aria-label="Secret-looking files left out">
          {secrets.map((s) => (
            <li key={s}>
              <code>{s}</code>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

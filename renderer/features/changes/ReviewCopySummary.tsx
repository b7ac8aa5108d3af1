/** One line under a Review-mode attachment: what its copy started from and what it left out. */
import type { ReviewCopyInfo } from '../../../shared/contract';

export function ReviewCopySummary({ info }: { info: ReviewCopyInfo }) {
  const start =
    info.kind === 'git'
      ? `Copy of ${info.baseCommit ? `HEAD ${info.baseCommit.slice(0, 7)}` : 'a repository with no commit yet'}` +
        (info.uncommittedCount > 0 ? ` plus your ${info.uncommittedCount} uncommitted change${info.uncommittedCount === 1 ? '' : 's'}` : ' (no uncommitted changes)') +
        (info.branch ? `, on branch ${info.branch}` : '')
      : 'Copy of the folder';
  const holds = info.contents.ignored ? 'ignored files included' : 'ignored files left out';
  return (
    <p className="review-copy muted">
      {start}; {info.fileCount.toLocaleString()} file{info.fileCount === 1 ? '' : 's'}, {holds}.
      {info.excludedSecrets.length > 0 && (
        <>
          {' '}
          Left out as secret-looking: <code>{info.excludedSecrets.slice(0, 5).join(', ')}</code>
          {info.excludedSecrets.length > 5 && ` and ${info.excludedSecrets.length - 5} more`} (attach again naming them to include them).
        </>
      )}
    </p>
  );
}

/** A Review-mode copy being made: which folder, what phase, how many files of how many. */
import { useReview } from '../../services/context';

export function CopyProgressLine({ chatId }: { chatId: string }) {
  const progress = useReview((s) => s.progress[chatId]);
  if (!progress) return null;
  return (
    <>
      {Object.values(progress).map((p) => {
        const label = `Copying ${p.hostPath}`;
        return (
          <div key={p.hostPath} className="copy-progress" role="status">
            <progress
              aria-label={label}
              max={p.totalFiles ?? undefined}
              value={p.totalFiles ? p.files : undefined}
            />
            <span>
              {p.message || label}
              {p.totalFiles ? ` (${p.files.toLocaleString()} of ${p.totalFiles.toLocaleString()} files)` : p.files > 0 ? ` (${p.files.toLocaleString()} files)` : ''}
            </span>
          </div>
        );
      })}
    </>
  );
}

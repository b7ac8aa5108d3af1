/**
 * A copy's changed files: kind (added, modified, deleted, renamed), path, +/− counts, a checkbox
 * to pick it for "Apply selected", and a button that shows its diff. Virtualized: a thousand
 * files cost a screenful of rows.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import type { ChangeStatus, FileChange } from '../../../shared/contract';

const ROW_HEIGHT = 28;

export const KIND: Record<ChangeStatus, { letter: string; label: string; className: string }> = {
  added: { letter: 'A', label: 'added', className: 'kind-added' },
  modified: { letter: 'M', label: 'modified', className: 'kind-modified' },
  deleted: { letter: 'D', label: 'deleted', className: 'kind-deleted' },
  renamed: { letter: 'R', label: 'renamed', className: 'kind-renamed' },
  typechange: { letter: 'T', label: 'type changed', className: 'kind-modified' },
};

export interface FileListProps {
  label: string;
  files: readonly FileChange[];
  selectedPath: string | null;
  checked: ReadonlySet<string>;
  conflicts: ReadonlySet<string>;
  onShow(path: string): void;
  onCheck(path: string, checked: boolean): void;
}

export function FileList({ label, files, selectedPath, checked, conflicts, onShow, onCheck }: FileListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: files.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: (index) => files[index]?.path ?? index,
    overscan: 10,
  });

  return (
    <div ref={scrollRef} className="changes-file-scroll">
      <ul className="changes-file-list" aria-label={label} style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const file = files[item.index];
          if (!file) return null;
          const kind = KIND[file.status];
          const conflict = conflicts.has(file.path);
          return (
            <li
              key={item.key}
              className={`change-row${file.path === selectedPath ? ' selected' : ''}`}
              style={{ transform: `translateY(${item.start}px)` }}
              aria-setsize={files.length}
              aria-posinset={item.index + 1}
            >
              <input
                type="checkbox"
                aria-label={`Select ${file.path}`}
                checked={checked.has(file.path)}
                onChange={(e) => onCheck(file.path, e.target.checked)}
              />
              <span className={`change-kind ${kind.className}`} title={kind.label} aria-hidden="true">
                {kind.letter}
              </span>
              <button
                type="button"
                className="change-path"
                aria-label={`${file.path} (${kind.label}${conflict ? ', conflict' : ''})`}
                aria-current={file.path === selectedPath ? 'true' : undefined}
                title={file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}
                onClick={() => onShow(file.path)}
              >
                {file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}
              </button>
              {conflict && (
                <span className="change-conflict" aria-hidden="true">
                  conflict
                </span>
              )}
              {file.additions !== null && file.deletions !== null && (
                <span className="muted change-stat" aria-hidden="true">
                  +{file.additions} −{file.deletions}
                </span>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

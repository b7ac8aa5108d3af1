/**
 * One Review-mode copy in the Changes panel: its changed files and their diffs, and what the user
 * can do with them: apply (all or the selected files), discard, refresh from their folder. In a
 * git repository, applying files is applying them as uncommitted changes (the files are written,
 * nothing is staged or committed), so the button says so and is the only file-writing one; the
 * other is "Create branch in my repository" (named from the chat's title, authored as the user),
 * which leaves the user's files alone; once it exists, "Push" sends it to the user's remote with
 * the user's own git, and a known forge's pull-request page can be opened.
 * A refused apply lists its conflicting files: nothing was applied.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ApplyProblem, CopyChanges, FileChange, HunkConflict } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions } from '../../services/context';
import { reviewActions } from './actions';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useFocusAfter } from '../../ui/useFocusAfter';
import { FileDiff, type DiffLayout } from './FileDiff';
import { FileList } from './FileList';
import { PushResult, type PushResponse } from './PushResult';
import { ConflictResolver } from './ConflictResolver';
import { HunkConflicts } from './HunkConflicts';
import { LineChooser } from './LineChooser';
import type { ReviewComments } from './useReviewComments';

type ApplyMode = 'files' | 'branch';

interface Outcome {
  /** What the problems stopped, if any: an apply or an undo of one. */
  action: 'applied' | 'undone';
  message: string;
  problems: ApplyProblem[];
  /** Refresh: files both the user and the chat changed; the chat's version was kept. */
  conflicts: string[];
  /** Apply of chosen lines: hunks that do not fit the folder now, both sides. */
  hunkConflicts?: HunkConflict[];
}

/** A file whose lines can be chosen: a text diff of a file added, modified or deleted. */
function choosable(f: FileChange): boolean {
  return !f.binary && !f.tooLarge && !f.symlink && f.diff !== null && ['added', 'modified', 'deleted'].includes(f.status);
}

function plural(n: number, one: string): string {
  return `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;
}

export function CopyReview({ chatId, copy, layout, comments }: { chatId: string; copy: CopyChanges; layout: DiffLayout; comments: ReviewComments }) {
  const review = useActions(reviewActions);
  const { files, hostPath } = copy;
  const [selectedPath, setSelectedPath] = useState<string | null>(null);
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const [pushed, setPushed] = useState<PushResponse | null>(null);
  const [choosing, setChoosing] = useState<string | null>(null);
  const [resolving, setResolving] = useState<string | null>(null);
  // Diffs fetched when shown, by copy version and path: a file changed again is a new version, never the old diff.
  const [fetched, setFetched] = useState<Readonly<Record<string, FileChange>>>({});
  const [diffError, setDiffError] = useState<ApiErrorInfo | null>(null);
  // After Apply, Undo, Discard or Refresh: on what came of it (then Tab goes on to the files), else the copy's section.
  const sectionRef = useRef<HTMLElement>(null);
  useFocusAfter(busy !== null, () => (sectionRef.current?.querySelector<HTMLElement>('[data-outcome]') ?? sectionRef.current)?.focus());

  // What is checked or shown must still be there after a reload of the changes.
  const paths = useMemo(() => new Set(files.map((f) => f.path)), [files]);
  const shown = (selectedPath !== null && paths.has(selectedPath) ? selectedPath : null) ?? files[0]?.path ?? null;
  const selected = useMemo(() => [...checked].filter((p) => paths.has(p)), [checked, paths]);
  const problemPaths = useMemo(() => new Set([...(outcome?.problems.map((p) => p.path) ?? []), ...(outcome?.conflicts ?? [])]), [outcome]);
  const file = files.find((f) => f.path === shown) ?? null;
  const fetchKey = file ? `${copy.version}\u0000${file.path}` : null;
  const full = file && file.diffOmitted ? (fetched[fetchKey ?? ''] ?? null) : file;

  // A diff main left out of the list to keep it small is fetched when the file is shown.
  useEffect(() => {
    if (!file || !file.diffOmitted || fetchKey === null || fetched[fetchKey]) return;
    let live = true;
    setDiffError(null);
    review
      .diff({ chatId, hostPath, path: file.path })
      // Only this version's fetches are kept: the older ones can never be shown again.
      .then((f) => live && setFetched((m) => ({ ...Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith(`${copy.version}\u0000`))), [fetchKey]: f })))
      .catch((e: unknown) => live && setDiffError(errorInfo(e)));
    return () => {
      live = false;
    };
  }, [review, chatId, hostPath, file, fetchKey, fetched, copy.version]);

  const run = async (what: string, action: () => Promise<Outcome | null>) => {
    setBusy(what);
    setError(null);
    setOutcome(null);
    setPushed(null);
    try {
      setOutcome(await action());
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(null);
      review.reloadChanges(chatId);
    }
  };

  const apply = (mode: ApplyMode, only: string[] | undefined) =>
    run(`apply-${mode}`, async () => {
      const r = await review.apply({ chatId, hostPath, mode, ...(only ? { files: only } : {}) });
      if (r.ok) setChecked(new Set());
      return { action: 'applied', message: r.message, problems: r.problems, conflicts: [] };
    });

  const applyLines = (path: string, lines: { removed: number[]; added: number[] }) =>
    run('apply-lines', async () => {
      const r = await review.applyLines({ chatId, hostPath, version: copy.version, files: [{ path, ...lines }] });
      return { action: 'applied', message: r.message, problems: r.problems, conflicts: [], hunkConflicts: r.conflicts };
    });

  const comment = async (path: string, range: { side: 'new' | 'old'; startLine: number; endLine: number }, body: string) => {
    setError(null);
    try {
      await review.comment({ chatId, hostPath, path, ...range, body });
      return true;
    } catch (e) {
      setError(errorInfo(e));
      return false;
    } finally {
      comments.reload();
    }
  };

  const closeComment = (id: string, action: 'resolve' | 'delete') =>
    void review
      .closeComment({ chatId, id, action })
      .catch((e: unknown) => setError(errorInfo(e)))
      .finally(() => comments.reload());

  const push = () =>
    run('push', async () => {
      setPushed(await review.push({ chatId, hostPath }));
      return null;
    });

  const undoApply = () =>
    run('undo-apply', async () => {
      const r = await review.undoApply({ chatId, hostPath });
      return { action: 'undone', message: r.message, problems: r.problems, conflicts: [] };
    });

  const discard = () =>
    run('discard', async () => {
      setConfirmDiscard(false);
      const r = await review.discard({ chatId, hostPath });
      return { action: 'applied', message: r.message, problems: [], conflicts: [] };
    });

  const refresh = () =>
    run('refresh', async () => {
      const r = await review.refresh({ chatId, hostPath });
      return { action: 'applied', message: r.message, problems: [], conflicts: r.conflicts };
    });

  const none = files.length === 0;
  const only = selected.length > 0 ? selected : undefined;
  const git = copy.kind === 'git';
  const branch = copy.exportBranch;

  return (
    <section className="copy-review" aria-label={`Changes in ${hostPath}`} ref={sectionRef} tabIndex={-1}>
      <div className="changes-toolbar">
        <strong title={hostPath}>{hostPath}</strong>
        {copy.containerPath && <code className="muted">{copy.containerPath}</code>}
        {git && copy.branch && <span className="badge">{copy.branch}</span>}
        <span className="muted">
          {plural(copy.counts.total, 'changed file')}
          {copy.truncated && ' (more than listed)'}
        </span>
      </div>
      <div className="changes-toolbar">
        <button
          type="button"
          className="primary"
          disabled={busy !== null || none}
          title={git ? 'Writes the files into your folder; nothing is staged or committed there.' : 'Writes the files into your folder.'}
          onClick={() => void apply('files', only)}
        >
          {(only ? `Apply ${plural(only.length, 'selected file')}` : 'Apply all') + (git ? ' as uncommitted changes' : '')}
        </button>
        {git && (
          <button
            type="button"
            disabled={busy !== null || none}
            title="One commit on your HEAD, in your repository, authored as you; your files are left alone."
            onClick={() => void apply('branch', only)}
          >
            {(branch ? `Update branch ${branch}` : 'Create branch in my repository') + (only ? ` with ${plural(only.length, 'selected file')}` : '')}
          </button>
        )}
        {git && branch && (
          <button
            type="button"
            disabled={busy !== null}
            title="Pushes the branch to your repository's remote with your own git and credentials, on this computer."
            onClick={() => void push()}
          >
            Push {branch}
          </button>
        )}
        {copy.lastApply && (
          <button
            type="button"
            disabled={busy !== null}
            title="Puts the files the last apply changed in your folder back as they were; the chat's copy keeps its work."
            onClick={() => void undoApply()}
          >
            Undo last apply ({plural(copy.lastApply.files.length, 'file')})
          </button>
        )}
        {busy !== null && (
          <span role="status" className="muted">
            <span className="spinner" aria-hidden="true" /> Working…
          </span>
        )}
        <span className="spacer" />
        <button type="button" disabled={busy !== null} onClick={() => void refresh()}>
          Refresh from my folder
        </button>
        <button type="button" className="danger" disabled={busy !== null || none} onClick={() => setConfirmDiscard(true)}>
          Discard…
        </button>
      </div>
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {pushed && <PushResult result={pushed} onDismiss={() => setPushed(null)} />}
      {outcome?.hunkConflicts && outcome.hunkConflicts.length > 0 && (
        <HunkConflicts message={outcome.message} conflicts={outcome.hunkConflicts} onResolve={setResolving} onDismiss={() => setOutcome(null)} />
      )}
      {outcome && outcome.problems.length > 0 && (
        <div role="alert" className="alert" aria-label={`Nothing was ${outcome.action}`} data-outcome tabIndex={-1}>
          <div className="alert-body">
            {/* Main's summary repeats the files' own messages: the list says it once, per file. */}
            <p className="alert-message">
              Nothing was {outcome.action}. {plural(outcome.problems.length, 'file')} in the way:
            </p>
            <ul className="conflict-list">
              {outcome.problems.map((p) => (
                <li key={`${p.kind}:${p.path}`}>
                  <code>{p.path}</code>: {p.message}
                  {p.kind === 'conflict' && (
                    <button type="button" className="small" onClick={() => setResolving(p.path)}>
                      Resolve {p.path}…
                    </button>
                  )}
                </li>
              ))}
            </ul>
            {outcome.action === 'applied' && outcome.problems.some((p) => p.kind === 'conflict') && (
              <p className="alert-hint">
                To go on: Resolve each file (your folder, the chat&apos;s copy and the base side by side), or Refresh from my folder (brings your
                newer changes into the chat&apos;s copy and merges what does not overlap), then apply again; or apply only the other files.
              </p>
            )}
          </div>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => setOutcome(null)}>
            ×
          </button>
        </div>
      )}
      {outcome && outcome.problems.length === 0 && !outcome.hunkConflicts?.length && (
        <div role="status" className="notice" data-outcome tabIndex={-1}>
          <p>{outcome.message}</p>
          {outcome.conflicts.length > 0 && (
            <>
              <p>Changed in your folder and by the chat (the chat&apos;s version was kept):</p>
              <ul className="conflict-list" aria-label="Conflicts">
                {outcome.conflicts.map((p) => (
                  <li key={p}>
                    <code>{p}</code>{' '}
                    <button type="button" className="small" onClick={() => setResolving(p)}>
                      Resolve {p}…
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      {none ? (
        <p className="muted">
          {copy.lastApply
            ? 'No changes left to apply: your folder has everything the chat changed.'
            : "No changes: the chat's copy matches your folder as it was copied."}
        </p>
      ) : (
        <div className="changes-body">
          <div className="changes-files">
            <FileList
              label={`Changed files in ${hostPath}`}
              files={files}
              selectedPath={shown}
              checked={checked}
              conflicts={problemPaths}
              onShow={setSelectedPath}
              onCheck={(path, on) =>
                setChecked((was) => {
                  const next = new Set(was);
                  if (on) next.add(path);
                  else next.delete(path);
                  return next;
                })
              }
            />
          </div>
          <div className="changes-diff" tabIndex={0} role="region" aria-label="Diff">
            {file && (
              <>
                <h3>{file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</h3>
                {file.symlink && <p className="diff-note">A symbolic link: applied as a link, never followed.</p>}
                {diffError && <ErrorAlert error={diffError} />}
                {full && choosable(full) && (
                  <button type="button" className="small" aria-pressed={choosing === full.path} onClick={() => setChoosing(choosing === full.path ? null : full.path)}>
                    {choosing === full.path ? 'Show the diff' : 'Choose hunks and lines'}
                  </button>
                )}
                {full && choosing === full.path && choosable(full) ? (
                  <LineChooser
                    key={`${copy.version}\u0000${full.path}`}
                    file={full}
                    busy={busy !== null}
                    comments={comments.comments.filter((c) => c.hostPath === hostPath && c.path === full.path)}
                    onApply={(lines) => void applyLines(full.path, lines)}
                    onComment={(range, body) => comment(full.path, range, body)}
                    onCloseComment={closeComment}
                  />
                ) : full ? (
                  <FileDiff
                    key={`${hostPath}\u0000${full.path}`}
                    path={full.path}
                    diff={full.diff}
                    binary={full.binary}
                    note={full.tooLarge ? 'This file is too large to diff; it is listed and can still be applied or discarded.' : null}
                    layout={layout}
                  />
                ) : (
                  !diffError && <p className="muted">Loading the diff…</p>
                )}
              </>
            )}
          </div>
        </div>
      )}
      {resolving !== null && (
        <ConflictResolver
          chatId={chatId}
          hostPath={hostPath}
          path={resolving}
          onClose={() => setResolving(null)}
          onDone={(message) => {
            setResolving(null);
            setOutcome({ action: 'applied', message, problems: [], conflicts: [] });
            review.reloadChanges(chatId);
          }}
        />
      )}
      {confirmDiscard && (
        <Dialog
          title="Discard the chat's changes?"
          onClose={() => setConfirmDiscard(false)}
          description={`The chat's copy of ${hostPath} goes back to your folder as it is now; ${plural(copy.counts.total, 'changed file')} will be lost. The sandbox stops first.`}
        >
          <div className="dialog-buttons">
            <button type="button" onClick={() => setConfirmDiscard(false)} data-autofocus>
              Cancel
            </button>
            <button type="button" className="danger" onClick={() => void discard()}>
              Discard changes
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

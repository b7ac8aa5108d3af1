/**
 * How a folder is attached: Review (the default: the chat works on its own copy), read-write or
 * read-only, one line each saying what it means; for Review, which files the copy holds.
 */
import { useId, useState } from 'react';
import { ATTACH_MODE_DESCRIPTIONS, type AttachMode, type CopyContents } from '../../../shared/contract';
import { Dialog } from '../../ui/Dialog';

/** The picker's choice: the mode and, always filled in here, what a Review copy holds. */
export interface AttachChoice {
  mode: AttachMode;
  contents: CopyContents;
}

export const DEFAULT_CHOICE: AttachChoice = { mode: 'review', contents: { ignored: false, include: [] } };

const MODE_LABELS: Record<AttachMode, string> = {
  review: 'Review',
  readwrite: 'Read-write',
  readonly: 'Read-only',
};

const ORDER: readonly AttachMode[] = ['review', 'readwrite', 'readonly'];

/** "a, b  c" → ["a", "b", "c"]: the names the user typed, each once. */
export function parseNames(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean))];
}

export function AttachModePicker({ value, onChange }: { value: AttachChoice; onChange(next: AttachChoice): void }) {
  const name = useId();
  const includeId = useId();
  const { mode, contents } = value;
  // The typed text, kept as typed (separators included); the choice holds the names it parses to.
  const [includeText, setIncludeText] = useState(() => contents.include.join(', '));
  return (
    <>
      <fieldset className="attach-mode">
        <legend>Mode</legend>
        {ORDER.map((m) => (
          <label key={m}>
            <input type="radio" name={name} value={m} checked={mode === m} onChange={() => onChange({ ...value, mode: m })} />
            <span>
              <strong>{MODE_LABELS[m]}</strong> <span className="mode-help">{ATTACH_MODE_DESCRIPTIONS[m]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {mode === 'review' && (
        <fieldset className="attach-files">
          <legend className="muted">
            For a git repository the copy starts from your current HEAD plus your uncommitted changes, on its own branch
            berth/&lt;chat&gt;; a plain folder is copied as it is.
          </legend>
          <label className="check">
            <input type="checkbox" checked disabled />
            <span>Tracked files and your uncommitted changes (always)</span>
          </label>
          <label className="check">
            <input type="checkbox" checked disabled />
            <span>Untracked files, except secret-looking ones (.env, keys, credentials)</span>
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={contents.ignored}
              onChange={(e) => onChange({ ...value, contents: { ...contents, ignored: e.target.checked } })}
            />
            <span>Ignored files too (node_modules, build output): copied, never reviewed or applied</span>
          </label>
          <label htmlFor={includeId}>Secret-looking files to copy anyway, by name (comma-separated)</label>
          <input
            id={includeId}
            type="text"
            placeholder=".env.example, config/local.key"
            spellCheck={false}
            value={includeText}
            onChange={(e) => {
              setIncludeText(e.target.value);
              onChange({ ...value, contents: { ...contents, include: parseNames(e.target.value) } });
            }}
          />
        </fieldset>
      )}
    </>
  );
}

/** The first step of "Attach folder…": how to attach; then the folder (native dialog or the in-app browser). */
export function AttachModeDialog({
  initial,
  busy,
  onChooseFolder,
  onClose,
}: {
  initial: AttachChoice;
  busy: boolean;
  onChooseFolder(choice: AttachChoice): void;
  onClose(): void;
}) {
  const [choice, setChoice] = useState(initial);
  return (
    <Dialog title="Attach a folder" onClose={onClose} className="attach-dialog">
      <AttachModePicker value={choice} onChange={setChoice} />
      <div className="dialog-buttons">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={busy} onClick={() => onChooseFolder(choice)} data-autofocus>
          Choose folder…
        </button>
      </div>
    </Dialog>
  );
}

/** What the chat will do to the folder, in the folder browser's words. */
export function modeSentence(mode: AttachMode): string {
  switch (mode) {
    case 'review':
      return "through its own copy: your folder changes only when you apply the chat's changes";
    case 'readwrite':
      return 'and may change or delete anything in it';
    case 'readonly':
      return 'read-only';
  }
}

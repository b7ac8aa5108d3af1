/**
 * The browser host's folder picker: folders from `workspace.browse`, go up, choose. It starts at
 * the last folder chosen (remembered in this browser), else where main suggests (a folder attach
 * accepts); it offers Choose only for a folder that exists and that attach accepts.
 */
import { useEffect, useRef, useState } from 'react';
import type { AttachMode, DirectoryListing } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions } from '../../services/context';
import { folderActions } from './actions';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { modeSentence } from '../changes';

export const LAST_FOLDER_KEY = 'berth.lastFolder';

function lastFolder(): string | null {
  try {
    return window.localStorage.getItem(LAST_FOLDER_KEY);
  } catch {
    return null;
  }
}

function rememberFolder(path: string): void {
  try {
    window.localStorage.setItem(LAST_FOLDER_KEY, path);
  } catch {
    // Not remembered: the next picker starts where main suggests.
  }
}

/** A folder, drawn (an emoji may have no glyph in the system's fonts and show as a box). */
function FolderIcon() {
  return (
    <svg className="folder-icon" aria-hidden="true" width="14" height="12" viewBox="0 0 14 12">
      <path d="M1 2.5A1.5 1.5 0 0 1 2.5 1H5l1.5 1.5h5A1.5 1.5 0 0 1 13 4v5.5A1.5 1.5 0 0 1 11.5 11h-9A1.5 1.5 0 0 1 1 9.5z" fill="currentColor" />
    </svg>
  );
}

export interface FolderBrowserProps {
  mode: AttachMode;
  onChoose(path: string): void;
  onClose(): void;
}

export function FolderBrowserDialog({ mode, onChoose, onClose }: FolderBrowserProps) {
  const folders = useActions(folderActions);
  const [listing, setListing] = useState<DirectoryListing | null>(null);
  const [pathInput, setPathInput] = useState('');
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [loading, setLoading] = useState(false);
  // Set once the user types: the first listing, arriving late, must not overwrite what they typed.
  const typedByUser = useRef(false);
  // Set once the user goes to a folder (Go, Up, a folder, Choose): until then the folder shown is
  // where the picker started, not the user's choice, so a refusal of it is a note, not an error.
  const [navigated, setNavigated] = useState(false);

  /** Lists `path` (main's start when absent); the listing, or null when it failed (the error is shown). */
  const browse = async (path?: string, initial = false): Promise<DirectoryListing | null> => {
    if (!initial) setNavigated(true);
    setLoading(true);
    try {
      const next = await folders.browse(path);
      setListing(next);
      if (!(initial && typedByUser.current)) setPathInput(next.path);
      setError(null);
      return next;
    } catch (e) {
      setError(errorInfo(e));
      return null;
    } finally {
      setLoading(false);
    }
  };

  // The first listing: the last folder chosen, while it is there; else main's starting folder.
  useEffect(() => {
    const last = lastFolder();
    void (async () => {
      if (last !== null) {
        try {
          const next = await folders.browse(last);
          setListing(next);
          if (!typedByUser.current) setPathInput(next.path);
          return;
        } catch {
          // Gone or unreadable now: start where main suggests.
        }
      }
      await browse(undefined, true);
    })();
  }, []);

  /** Choose: a typed path is listed first, so a missing or refused folder says why instead. */
  const choose = async () => {
    const target = typed !== '' && typed !== listing?.path ? await browse(typed) : listing;
    if (target === null || target === undefined || target.refused !== null) return;
    rememberFolder(target.path);
    onChoose(target.path);
  };

  // The typed path when the user edited it, else the folder shown.
  const typed = pathInput.trim();
  const chosen = typed !== '' ? typed : (listing?.path ?? '');
  // The folder shown is one attach refuses, and the path field still names it.
  const refusal = listing !== null && (typed === '' || typed === listing.path) ? listing.refused : null;

  return (
    <Dialog title="Choose a folder to attach" onClose={onClose} className="folder-browser">
      <form
        className="path-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed !== '') void browse(typed);
        }}
      >
        <input
          aria-label="Folder path"
          value={pathInput}
          onChange={(e) => {
            typedByUser.current = true;
            setPathInput(e.target.value);
          }}
          spellCheck={false}
          data-autofocus
        />
        <button type="submit" disabled={loading || typed === ''}>
          Go
        </button>
        <button type="button" aria-label="Go up" title="Go up" disabled={loading || !listing?.parent} onClick={() => listing?.parent && void browse(listing.parent)}>
          Up
        </button>
      </form>
      {error && <ErrorAlert error={error} />}
      {/* Attach's own reason, before the user tries: Choose stays off for this folder. */}
      {refusal !== null && !navigated && (
        <p role="note" className="muted">
          {refusal} {listing?.entries.length ? 'Open a folder below, or type its path above.' : "Type a folder's path above."}
        </p>
      )}
      {refusal !== null && navigated && (
        <ErrorAlert
          error={{ code: 'workspace_refused', message: refusal, hint: 'Pick another folder: a project folder, for example one inside your home folder.' }}
        />
      )}
      <div className="folder-list-box" aria-busy={loading}>
        {listing && listing.entries.length > 0 && (
          <ul className="folder-list" aria-label={`Folders in ${listing.path}`}>
            {listing.entries.map((entry) => (
              <li key={entry.path}>
                <button type="button" className="folder-entry" onClick={() => void browse(entry.path)} disabled={loading}>
                  <FolderIcon />
                  {entry.name}
                </button>
              </li>
            ))}
          </ul>
        )}
        {listing && listing.entries.length === 0 && <p className="muted">No folders in here.</p>}
      </div>
      {/* Only for a folder it could have: under a refused one, the refusal alone says what happens. */}
      {refusal === null && (
        <p className="muted">
          The chat will see <strong>{chosen || 'the folder'}</strong> {modeSentence(mode)}.
        </p>
      )}
      <div className="dialog-buttons">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="primary"
          disabled={chosen === '' || loading || refusal !== null}
          onClick={() => void choose()}
        >
          Choose this folder
        </button>
      </div>
    </Dialog>
  );
}

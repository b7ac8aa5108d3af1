/** The browser host's folder picker: folders from `workspace.browse`, go up, choose. */
import { useEffect, useRef, useState } from 'react';
import type { AttachMode, DirectoryListing } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useServices } from '../../app/context';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { modeSentence } from '../changes/AttachModePicker';

export interface FolderBrowserProps {
  mode: AttachMode;
  onChoose(path: string): void;
  onClose(): void;
}

export function FolderBrowserDialog({ mode, onChoose, onClose }: FolderBrowserProps) {
  const { api } = useServices();
  const [listing, setListing] = useState<DirectoryListing | null>(null);
  const [pathInput, setPathInput] = useState('');
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [loading, setLoading] = useState(false);
  // Set once the user types: the first listing, arriving late, must not overwrite what they typed.
  const typedByUser = useRef(false);

  const browse = async (path?: string) => {
    setLoading(true);
    const initial = path === undefined;
    try {
      const next = await api.call('workspace.browse', initial ? {} : { path });
      setListing(next);
      if (!(initial && typedByUser.current)) setPathInput(next.path);
      setError(null);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setLoading(false);
    }
  };

  // The first listing: main's starting folder.
  useEffect(() => {
    void browse();
  }, []);

  // The typed path when the user edited it, else the folder shown.
  const typed = pathInput.trim();
  const chosen = typed !== '' ? typed : (listing?.path ?? '');

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
      <div className="folder-list-box" aria-busy={loading}>
        {listing && listing.entries.length > 0 && (
          <ul className="folder-list" aria-label={`Folders in ${listing.path}`}>
            {listing.entries.map((entry) => (
              <li key={entry.path}>
                <button type="button" className="folder-entry" onClick={() => void browse(entry.path)} disabled={loading}>
                  <span aria-hidden="true">📁 </span>
                  {entry.name}
                </button>
              </li>
            ))}
          </ul>
        )}
        {listing && listing.entries.length === 0 && <p className="muted">No folders in here.</p>}
      </div>
      <p className="muted">
        The chat will see <strong>{chosen || 'the folder'}</strong> {modeSentence(mode)}.
      </p>
      <div className="dialog-buttons">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={chosen === ''} onClick={() => onChoose(chosen)}>
          Choose this folder
        </button>
      </div>
    </Dialog>
  );
}

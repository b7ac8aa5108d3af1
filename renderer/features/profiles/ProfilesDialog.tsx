/** Profiles: the list, and a form to create one or edit the chosen one. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { DEFAULT_PROFILE } from '../../../shared/contract';
import { useProfiles } from '../../services/context';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { DeleteProfile } from './DeleteProfile';
import { ProfileForm } from './ProfileForm';

type Mode = { kind: 'create'; n: number } | { kind: 'edit'; name: string };

export interface ProfilesDialogProps {
  onClose(): void;
  /** The profile to open at (a chat's "Open profile settings"); the first one otherwise. */
  initialProfile?: string | null;
  /** Opened to set up that profile's agent: its first empty agent field takes the focus. */
  focusAgent?: boolean;
}

export function ProfilesDialog({ onClose, initialProfile = null, focusAgent = false }: ProfilesDialogProps) {
  const profiles = useProfiles((s) => s.profiles);
  const error = useProfiles((s) => s.error);
  const [mode, setMode] = useState<Mode>(() => {
    const first = profiles.find((p) => p.name === initialProfile) ?? profiles[0];
    return first ? { kind: 'edit', name: first.name } : { kind: 'create', n: 0 };
  });
  // Opened at a profile before the list arrived: go to it when it does, unless the user moved on.
  const pending = useRef(initialProfile !== null && mode.kind === 'create' ? initialProfile : null);
  useEffect(() => {
    if (pending.current !== null && profiles.some((p) => p.name === pending.current)) {
      setMode({ kind: 'edit', name: pending.current });
      pending.current = null;
    }
  }, [profiles]);
  /** The profile just created: its edit form opens saying so. */
  const [created, setCreated] = useState<string | null>(null);
  const editing = mode.kind === 'edit' ? (profiles.find((p) => p.name === mode.name) ?? null) : null;
  // Edits not saved yet: closing or going to another profile asks first, never drops them silently.
  const dirty = useRef(false);
  const onDirtyChange = useCallback((d: boolean) => {
    dirty.current = d;
  }, []);
  const [leaving, setLeaving] = useState<{ go: () => void } | null>(null);
  const guard = (go: () => void) => {
    if (dirty.current) setLeaving({ go });
    else go();
  };

  return (
    <Dialog title="Profiles" onClose={() => guard(onClose)} className="profiles-dialog">
      {error && <ErrorAlert error={error} />}
      {leaving && (
        <div className="alert alert-warn unsaved" role="alert">
          <p>This profile has changes that are not saved.</p>
          <div className="dialog-buttons">
            <button type="button" onClick={() => setLeaving(null)} data-autofocus>
              Keep editing
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                const { go } = leaving;
                dirty.current = false;
                setLeaving(null);
                go();
              }}
            >
              Discard changes
            </button>
          </div>
        </div>
      )}
      <div className="profiles-layout">
        <div className="profiles-list">
          <ul aria-label="Profile list">
            {profiles.map((p) => (
              <li key={p.name}>
                <button
                  type="button"
                  className="profile-button"
                  aria-current={editing?.name === p.name ? 'true' : undefined}
                  onClick={() =>
                    guard(() => {
                      pending.current = null;
                      setCreated(null);
                      setMode({ kind: 'edit', name: p.name });
                    })
                  }
                >
                  {p.name}
                  {p.settings.backend === 'local' && <span className="badge badge-warn">local</span>}
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            onClick={() =>
              guard(() => {
                pending.current = null;
                setMode((m) => ({ kind: 'create', n: m.kind === 'create' ? m.n + 1 : 0 }));
              })
            }
          >
            Create profile
          </button>
        </div>
        <ProfileForm
          key={mode.kind === 'edit' ? `edit:${mode.name}` : `create:${mode.n}`}
          profile={editing}
          initiallySaved={editing !== null && editing.name === created}
          onDirtyChange={onDirtyChange}
          focusAgent={focusAgent && editing?.name === initialProfile}
          onSaved={(p) => {
            if (mode.kind !== 'create') return;
            setCreated(p.name);
            setMode({ kind: 'edit', name: p.name });
          }}
        />
      </div>
      {editing && editing.name !== DEFAULT_PROFILE && (
        <div className="profile-delete">
          <DeleteProfile
            key={editing.name}
            name={editing.name}
            onDeleted={() => {
              dirty.current = false;
              setMode({ kind: 'create', n: 0 });
            }}
          />
        </div>
      )}
      <div className="dialog-buttons">
        <button type="button" onClick={() => guard(onClose)}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

/**
 * Deleting a profile: it asks first and says what goes with it, its chats
 * with their containers and home folders, by count, then how many are left while they go. The
 * default profile is not offered.
 */
import { useState } from 'react';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useChats, useReview, useServices } from '../../services/context';
import { changedFiles, unappliedLoss } from '../changes';
import { ErrorAlert } from '../../ui/ErrorAlert';

export function DeleteProfile({ name, onDeleted }: { name: string; onDeleted(): void }) {
  const { api } = useServices();
  const ofProfile = useChats((s) => s.chats).filter((c) => c.profile === name);
  const chats = ofProfile.length;
  // Their Review copies go with them: say what that loses.
  const counts = useReview((s) => s.counts);
  const unapplied = ofProfile.reduce((n, c) => n + (changedFiles(c, counts[c.id]) ?? 0), 0);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const what = chats === 0 ? 'It has no chats.' : `Its ${chats === 1 ? 'chat is' : `${chats} chats are`} deleted with it, with their containers and home folders. Attached folders stay as they are.`;
  const lost = unappliedLoss(unapplied, 'profile');

  const remove = async () => {
    setBusy(true);
    try {
      await api.call('profiles.delete', { name });
      onDeleted();
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Delete profile…
      </button>
    );
  }
  return (
    <div className="alert unsaved" role="alert" aria-label={`Delete profile ${name}?`}>
      <p>
        Delete the profile “{name}”? {what}
        {lost}
      </p>
      {error && <ErrorAlert error={error} />}
      {busy && (
        // Main deletes the chats a few at a time and says as each goes: the list, and this count, follow.
        <p role="status" className="muted">
          Deleting… {chats === 0 ? 'removing the profile' : `${chats === 1 ? '1 chat' : `${chats} chats`} left`}
        </p>
      )}
      <div className="dialog-buttons">
        <button type="button" onClick={() => setAsking(false)} disabled={busy} data-autofocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={() => void remove()} disabled={busy}>
          {busy ? 'Deleting…' : chats === 0 ? 'Delete profile' : `Delete profile and ${chats === 1 ? 'its chat' : `${chats} chats`}`}
        </button>
      </div>
    </div>
  );
}

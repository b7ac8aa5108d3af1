/** Confirms deleting a chat, saying plainly what goes with it. */
import { useState } from 'react';
import type { ChatView } from '../../../shared/contract';
import { useServices } from '../../services/context';
import { unappliedLoss, useChangedCount } from '../changes';
import { Dialog } from '../../ui/Dialog';

export function DeleteChatDialog({ chat, onClose }: { chat: ChatView; onClose(): void }) {
  const { stores } = useServices();
  const [busy, setBusy] = useState(false);
  // Its Review copies go with it (main's DeletionService): say what that loses.
  const lost = unappliedLoss(useChangedCount(chat) ?? 0, 'chat');

  const confirm = async () => {
    setBusy(true);
    // A failure shows in the sidebar's alert (the store keeps it); the dialog closes either way.
    await stores.chats.getState().remove(chat.id);
    setBusy(false);
    onClose();
  };

  return (
    <Dialog
      title={`Delete “${chat.title}”?`}
      onClose={onClose}
      description={`This removes the chat's container and its home folder (/home/berth) with everything in them. Folders you attached stay on your computer, untouched.${lost}`}
    >
      <div className="dialog-buttons">
        <button type="button" onClick={onClose} disabled={busy} data-autofocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={() => void confirm()} disabled={busy}>
          {busy ? 'Deleting…' : 'Delete chat'}
        </button>
      </div>
    </Dialog>
  );
}

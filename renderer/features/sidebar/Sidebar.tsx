/** The chat list: grouped by profile, filterable; New chat, inline rename, delete with confirmation. */
import { memo, useId, useMemo, useState, type ReactNode } from 'react';
import type { ChatView } from '../../../shared/contract';
import { useChats, useProfiles, useServices } from '../../services/context';
import { DEFAULT_PROFILE, groupChats } from '../../stores/chats';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { ChatItem } from './ChatItem';
import { DeleteChatDialog } from './DeleteChatDialog';

/**
 * `header` and `footer` are the app's own controls (brand, help, Profiles) placed around the list.
 * Memoized down to each row: a chat switch re-renders only the two rows whose selection changed,
 * not every row of a long list (a switch fits in a frame at 100 chats).
 */
export const Sidebar = memo(function Sidebar({ header, footer }: { header?: ReactNode; footer?: ReactNode }) {
  const { stores } = useServices();
  const chats = useChats((s) => s.chats);
  const loaded = useChats((s) => s.loaded);
  const filter = useChats((s) => s.filter);
  const selectedId = useChats((s) => s.selectedId);
  const newChatProfile = useChats((s) => s.newChatProfile);
  const error = useChats((s) => s.error);
  const profiles = useProfiles((s) => s.profiles);
  const profilesLoaded = useProfiles((s) => s.loaded);
  const [deleting, setDeleting] = useState<ChatView | null>(null);
  const [creating, setCreating] = useState(false);

  const profileNames = useMemo(() => {
    const names = profiles.map((p) => p.name);
    if (!names.includes(DEFAULT_PROFILE) && profiles.length === 0) names.push(DEFAULT_PROFILE);
    // Before the list arrives, the choice is shown as it is; after, only profiles that exist.
    if (!profilesLoaded && !names.includes(newChatProfile)) names.push(newChatProfile);
    return names;
  }, [profiles, profilesLoaded, newChatProfile]);
  const groups = useMemo(() => groupChats(chats, profileNames, filter), [chats, profileNames, filter]);
  const chatsState = stores.chats.getState;

  const createChat = async () => {
    setCreating(true);
    try {
      await chatsState().create();
    } finally {
      setCreating(false);
    }
  };

  return (
    <aside className="sidebar" aria-label="Chats and profiles">
      {header}
      <div className="sidebar-actions">
        <button type="button" className="primary" onClick={() => void createChat()} disabled={creating} title={`New chat in ${newChatProfile} (Ctrl+Shift+N)`}>
          New chat
        </button>
        <select aria-label="Profile for new chats" value={newChatProfile} onChange={(e) => chatsState().setNewChatProfile(e.target.value)}>
          {profileNames.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <input
        type="search"
        className="filter"
        aria-label="Filter chats"
        placeholder="Filter chats"
        value={filter}
        onChange={(e) => chatsState().setFilter(e.target.value)}
      />
      {error && <ErrorAlert error={error} onDismiss={() => chatsState().dismissError()} />}
      <nav aria-label="Chats" className="chat-nav">
        {groups.map((group) => (
          <ChatGroupSection key={group.profile} profile={group.profile} chats={group.chats} selectedId={selectedId} onDelete={setDeleting} />
        ))}
        {loaded && filter.trim() !== '' && groups.length === 0 && <p className="muted empty">No chat matches “{filter.trim()}”.</p>}
      </nav>
      {footer}
      {deleting && <DeleteChatDialog chat={deleting} onClose={() => setDeleting(null)} />}
    </aside>
  );
});

const ChatGroupSection = memo(function ChatGroupSection({
  profile,
  chats,
  selectedId,
  onDelete,
}: {
  profile: string;
  chats: ChatView[];
  selectedId: string | null;
  onDelete(chat: ChatView): void;
}) {
  const headingId = useId();
  return (
    <section className="chat-group" aria-labelledby={headingId}>
      <h3 id={headingId} className="chat-group-title">
        {profile}
      </h3>
      {chats.length > 0 ? (
        <ul className="chat-list" aria-label={`Chats in ${profile}`}>
          {chats.map((chat) => (
            <ChatItem key={chat.id} chat={chat} selected={chat.id === selectedId} onDelete={onDelete} />
          ))}
        </ul>
      ) : (
        <p className="muted empty">No chats yet.</p>
      )}
    </section>
  );
});

/** The window: sidebar (chats), the selected chat (header and terminals), status bar. */
import { useState } from 'react';
import { ChatHeader } from '../features/chat/ChatHeader';
import { ProfilesDialog } from '../features/profiles/ProfilesDialog';
import { HelpPopover } from '../features/shortcuts/HelpPopover';
import { Sidebar } from '../features/sidebar/Sidebar';
import { StatusBar } from '../features/status/StatusBar';
import { TerminalArea } from '../features/terminals/TerminalArea';
import { useChats, useServices } from './context';
import { useGlobalShortcuts } from './shortcuts';

export function App() {
  const { stores } = useServices();
  const chat = useChats((s) => (s.selectedId === null ? null : (s.chats.find((c) => c.id === s.selectedId) ?? null)));
  const loaded = useChats((s) => s.loaded);
  const [profilesOpen, setProfilesOpen] = useState(false);
  useGlobalShortcuts(stores);

  return (
    <div className="app">
      <Sidebar
        header={
          <div className="brand">
            <span className="brand-name">Berth</span>
            <HelpPopover />
          </div>
        }
        footer={
          <div className="sidebar-footer">
            <button type="button" onClick={() => setProfilesOpen(true)}>
              Profiles
            </button>
          </div>
        }
      />
      <main className="main">
        {chat ? (
          <>
            <ChatHeader key={`header:${chat.id}`} chat={chat} />
            <TerminalArea key={`terminals:${chat.id}`} chatId={chat.id} />
          </>
        ) : (
          <div className="empty-main">
            {loaded ? (
              <>
                <p>No chat selected.</p>
                <p className="muted">Start one with New chat (Ctrl+Shift+N): it gets its own sandbox.</p>
              </>
            ) : (
              <p className="muted">Loading…</p>
            )}
          </div>
        )}
      </main>
      <StatusBar />
      {profilesOpen && <ProfilesDialog onClose={() => setProfilesOpen(false)} />}
    </div>
  );
}

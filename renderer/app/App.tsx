/**
 * The window: sidebar (chats), the selected chat (header, then its conversation beside its
 * terminals), status bar.
 *
 * A chat switch changes the chat these views show; it does not remount them (a switch
 * within a frame). What belongs to one chat alone (a draft, a dialog, an in-flight attach, the
 * message list's scroll position, the network log) lives in a part keyed by the chat's id, so
 * it starts afresh for the next chat and nothing of one chat shows in another
 * (renderer/app/chatSwitch.test.tsx).
 */
import { useCallback, useMemo, useState } from 'react';
import { ChangesPanel } from '../features/changes';
import { ChatHeader } from '../features/chat';
import { ConversationPane } from '../features/conversation';
import { ProfilesDialog } from '../features/profiles';
import { HelpPopover } from '../features/shortcuts';
import { Sidebar } from '../features/sidebar';
import { StatusBar, ConnectionBanner } from '../features/status';
import { TerminalArea } from '../features/terminals';
import { SplitView } from '../ui/SplitView';
import { useChats, useConnection, useServices } from '../services/context';
import { useGlobalShortcuts } from './shortcuts';
import { useMediaQuery } from '../ui/useMediaQuery';

/**
 * Wide enough for the Changes panel beside the other two: a diff of 100-column lines in 12 px
 * monospace needs about 720 px, and the file list beside it 220 px, past the sidebar's 260.
 */
const WIDE_WINDOW = '(min-width: 1700px)';

export function App() {
  const { stores } = useServices();
  const chat = useChats((s) => (s.selectedId === null ? null : (s.chats.find((c) => c.id === s.selectedId) ?? null)));
  const loaded = useChats((s) => s.loaded);
  /** The Profiles dialog: closed (null), or open at a profile (or at the first one). */
  const [profiles, setProfiles] = useState<{ at: string | null; focusAgent?: boolean } | null>(null);
  /** The chat whose Changes panel is shown beside its conversation and terminals. */
  const [changesFor, setChangesFor] = useState<string | null>(null);
  const showChanges = chat !== null && changesFor === chat.id;
  useGlobalShortcuts(stores);
  const wide = useMediaQuery(WIDE_WINDOW);
  // From a chat whose agent is not set up: straight to the field it needs.
  const openProfile = useCallback((at: string) => setProfiles({ at, focusAgent: true }), []);
  // Without the link to Berth nothing here can act: inert (no clicks, no focus, no typing) until it is back.
  const offline = useConnection((s) => s.state !== 'open');
  // Made once: the sidebar is memoized, and new elements here would re-render it (and its rows) on every switch.
  const sidebarHeader = useMemo(
    () => (
      <div className="brand">
        <span className="brand-name">Berth</span>
        <HelpPopover />
      </div>
    ),
    [],
  );
  const sidebarFooter = useMemo(
    () => (
      <div className="sidebar-footer">
        <button type="button" onClick={() => setProfiles({ at: null })}>
          Profiles
        </button>
      </div>
    ),
    [],
  );

  return (
    <div className={offline ? 'app app-offline' : 'app'}>
      <ConnectionBanner />
      <div className="app-body" inert={offline}>
        <Sidebar header={sidebarHeader} footer={sidebarFooter} />
        <main className="main">
          {chat ? (
            <>
              <ChatHeader
                chat={chat}
                changes={{ open: showChanges, onToggle: () => setChangesFor(showChanges ? null : chat.id) }}
              />
              {/* The Changes panel beside the conversation and the terminals, not instead of them: the
                  user watches the agent work and its changes at once. Side by side in a wide window,
                  below them otherwise (a diff needs the width). */}
              <SplitView
                label="Resize the Changes panel"
                storageKey={wide ? 'berth.split.changes.row' : 'berth.split.changes.column'}
                direction={wide ? 'row' : 'column'}
                initialPercent={wide ? 50 : 30}
                first={
                  <SplitView
                    label="Resize conversation and terminals"
                    storageKey="berth.split.conversation"
                    initialPercent={55}
                    first={<ConversationPane chat={chat} onOpenProfile={openProfile} />}
                    second={<TerminalArea chatId={chat.id} />}
                  />
                }
                second={showChanges ? <ChangesPanel key={`changes:${chat.id}`} chatId={chat.id} onClose={() => setChangesFor(null)} /> : null}
              />
            </>
          ) : (
            <div className="empty-main">
              {loaded ? (
                <>
                  {/* The window's one h1 (a chat's title is, when one is open). */}
                  <h1 className="empty-title">No chat selected.</h1>
                  <p className="muted">Start one with New chat (Ctrl+Shift+N): it gets its own sandbox.</p>
                </>
              ) : (
                <p className="muted">Loading…</p>
              )}
            </div>
          )}
        </main>
      </div>
      <StatusBar />
      {profiles && <ProfilesDialog initialProfile={profiles.at} focusAgent={profiles.focusAgent ?? false} onClose={() => setProfiles(null)} />}
    </div>
  );
}

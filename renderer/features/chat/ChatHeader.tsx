/**
 * The selected chat's header: title, profile, attached folders, and its sandbox's state, on one
 * row (what opens in it, and its notices as dismissible lines, go below). Kept mounted across
 * chat switches (App); the parts with state of their own are keyed by the chat.
 */
import type { ChatView } from '../../../shared/contract';
import { ChangesButton } from '../changes';
import { Attachments } from './Attachments';
import { SandboxPanel } from './SandboxPanel';
import { NetworkView } from '../network';
import { PortsView } from '../ports';
import { EnvironmentView } from '../environment';
import { Notice } from '../../ui/Notice';
import { useUntilRecreated } from './useUntilRecreated';

export interface ChangesToggle {
  open: boolean;
  onToggle(): void;
}

export function ChatHeader({ chat, changes }: { chat: ChatView; changes?: ChangesToggle }) {
  const notice = useUntilRecreated(chat.id);
  return (
    <header className="chat-header">
      <div className="chat-header-row">
        <h1 className="chat-title">{chat.title}</h1>
        <span className="badge" title="Profile">
          {chat.profile}
        </span>
        {chat.image !== null && (
          <span className="badge" title="This chat's own image">
            {chat.image}
          </span>
        )}
        {/* Keyed by the chat: their own state (a dialog, an attach under way, the details shown, the log) is that chat's alone. */}
        <Attachments key={`attachments:${chat.id}`} chat={chat} notice={notice} />
        <EnvironmentView key={`environment:${chat.id}`} chat={chat} />
        <SandboxPanel key={`sandbox:${chat.id}`} chatId={chat.id} />
        <NetworkView key={`network:${chat.id}`} chatId={chat.id} />
        <PortsView key={`ports:${chat.id}`} chatId={chat.id} />
        {changes && <ChangesButton chat={chat} open={changes.open} onToggle={changes.onToggle} />}
      </div>
      {notice.text !== null && <Notice text={notice.text} onDismiss={() => notice.show(null)} />}
    </header>
  );
}

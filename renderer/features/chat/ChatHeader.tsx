/** The selected chat's header: title, profile, attached folders, and its sandbox's state. */
import type { ChatView } from '../../../shared/contract';
import { ChangesButton } from '../changes/ChangesPanel';
import { Attachments } from './Attachments';
import { SandboxPanel } from './SandboxPanel';
import { NetworkView } from '../network/NetworkView';

export interface ChangesToggle {
  open: boolean;
  onToggle(): void;
}

export function ChatHeader({ chat, changes }: { chat: ChatView; changes?: ChangesToggle }) {
  return (
    <header className="chat-header">
      <div className="chat-title-row">
        <h1 className="chat-title">{chat.title}</h1>
        <span className="badge" title="Profile">
          {chat.profile}
        </span>
        {chat.image !== null && (
          <span className="badge" title="This chat's own image">
            {chat.image}
          </span>
        )}
        {changes && <ChangesButton chat={chat} open={changes.open} onToggle={changes.onToggle} />}
      </div>
      <Attachments chat={chat} />
      <SandboxPanel chatId={chat.id} />
      <NetworkView chatId={chat.id} />
    </header>
  );
}

/** The selected chat's header: title, profile, attached folders, and its sandbox's state. */
import type { ChatView } from '../../../shared/contract';
import { Attachments } from './Attachments';
import { SandboxPanel } from './SandboxPanel';
import { NetworkView } from '../network/NetworkView';

export function ChatHeader({ chat }: { chat: ChatView }) {
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
      </div>
      <Attachments chat={chat} />
      <SandboxPanel chatId={chat.id} />
      <NetworkView chatId={chat.id} />
    </header>
  );
}

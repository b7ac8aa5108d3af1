/** One chat in the list: a button named by its title; the selected one offers rename and delete. */
import { memo, useEffect, useRef, useState } from 'react';
import type { ChatView } from '../../../shared/contract';
import { useServices } from '../../services/context';
import { ChangedCountBadge } from '../changes';
import { AttentionBadge, PressureMark } from './AttentionBadge';

/** Memoized: `onDelete` is the list's one callback (it takes the chat), so a row re-renders only when its own props change. */
export const ChatItem = memo(function ChatItem({ chat, selected, onDelete }: { chat: ChatView; selected: boolean; onDelete(chat: ChatView): void }) {
  const { stores } = useServices();
  const [renaming, setRenaming] = useState(false);

  return (
    <li className={`chat-item${selected ? ' selected' : ''}`}>
      {renaming ? (
        <RenameField chat={chat} onDone={() => setRenaming(false)} />
      ) : (
        <button
          type="button"
          className="chat-button"
          aria-current={selected ? 'true' : undefined}
          onClick={() => stores.chats.getState().select(chat.id)}
          onDoubleClick={() => setRenaming(true)}
        >
          {chat.title}
        </button>
      )}
      <AttentionBadge chatId={chat.id} />
      <PressureMark chatId={chat.id} />
      <ChangedCountBadge chat={chat} />
      {selected && !renaming && (
        <span className="chat-actions">
          <button type="button" className="small" aria-label="Rename chat" title="Rename chat" onClick={() => setRenaming(true)}>
            Rename
          </button>
          <button type="button" className="small danger" aria-label="Delete chat" title="Delete chat" onClick={() => onDelete(chat)}>
            Delete
          </button>
        </span>
      )}
    </li>
  );
});

function RenameField({ chat, onDone }: { chat: ChatView; onDone(): void }) {
  const { stores } = useServices();
  const [value, setValue] = useState(chat.title);
  const ref = useRef<HTMLInputElement>(null);
  const done = useRef(false);

  useEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);

  const finish = async (save: boolean) => {
    if (done.current) return;
    done.current = true;
    const title = value.trim();
    if (save && title !== '' && title !== chat.title) await stores.chats.getState().rename(chat.id, title);
    onDone();
  };

  return (
    <input
      ref={ref}
      className="rename-field"
      aria-label="Chat title"
      value={value}
      maxLength={200}
      onChange={(e) => setValue(e.target.value)}
      onBlur={() => void finish(true)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          void finish(true);
        } else if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          void finish(false);
        }
      }}
    />
  );
}

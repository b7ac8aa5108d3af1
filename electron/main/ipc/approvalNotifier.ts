/**
 * The desktop app's notification when a command waits for approval and Berth's window is not
 * focused: Electron's Notification, shown by main, so the page never gets to
 * put words on the user's desktop. Electron is passed in (`show`), so this is tested under Node.
 */
import type { ApprovalRequest, ChatView } from '../../../shared/contract.js';
import type { BerthCore } from '../core.js';
import type { Disposable } from '../events.js';

export interface ApprovalNotice {
  title: string;
  body: string;
  /** The notification was clicked: bring the window forward. */
  onClick(): void;
}

export interface ApprovalNotifierOptions {
  core: Pick<BerthCore, 'onEvent' | 'call'>;
  /** Whether Berth's window has the focus (then the prompt in the window is enough). */
  isFocused(): boolean;
  /** Shows the notification (Electron: `new Notification({ title, body }).show()`). */
  show(notice: ApprovalNotice): void;
  /** Brings the window to the front. */
  focusWindow(): void;
}

/** The first line of the command, shortened: the notification is a pointer, the window shows all of it. */
function firstLine(command: string): string {
  const line = command.split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function notifyApprovals(options: ApprovalNotifierOptions): Disposable {
  const { core, isFocused, show, focusWindow } = options;
  const title = async (chatId: string): Promise<string | null> => {
    try {
      const { chats } = (await core.call('chats.list', {})) as { chats: ChatView[] };
      return chats.find((c) => c.id === chatId)?.title ?? null;
    } catch {
      return null;
    }
  };
  return core.onEvent((event, payload) => {
    if (event !== 'agent.approval' || isFocused()) return;
    const request = payload as ApprovalRequest;
    void title(request.chatId).then((chatTitle) => {
      // Answered meanwhile, or the user came back: nothing to say.
      if (isFocused()) return;
      show({
        title: chatTitle === null ? 'A chat is waiting for your approval' : `“${chatTitle}” is waiting for your approval`,
        body: `The agent wants to use ${request.tool}: ${firstLine(request.command)}`,
        onClick: focusWindow,
      });
    });
  });
}

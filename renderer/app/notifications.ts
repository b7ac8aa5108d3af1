/**
 * Desktop notifications in the browser host (the Notification API): a command waits for
 * approval while the window is not focused. The desktop app's main process shows Electron's
 * own notification instead (electron/main/ipc/approvalNotifier.ts), so this is not used there.
 */
import type { ApprovalRequest } from '../../shared/contract';

/** What this uses of `window`: injected so it is tested with a stand-in. */
export interface NotifyWindow {
  Notification?: {
    readonly permission: NotificationPermission;
    requestPermission(): Promise<NotificationPermission>;
    new (title: string, options?: NotificationOptions): Notification;
  };
  document: { hasFocus(): boolean };
  focus(): void;
}

export interface ApprovalNotifier {
  /** Asks for the permission once, on a user's action (a browser ignores a request without one). */
  ask(): void;
  /** Notifies, unless the window has the focus or notifications are not allowed. */
  approvalNeeded(request: ApprovalRequest, chatTitle: string | null): void;
}

/** The notification's words: which chat waits, and for what (the first line of the command). */
export function approvalNotice(request: ApprovalRequest, chatTitle: string | null): { title: string; body: string } {
  const first = request.command.split('\n')[0] ?? '';
  const what = first.length > 120 ? `${first.slice(0, 119)}…` : first;
  return {
    title: chatTitle === null ? 'A chat is waiting for your approval' : `“${chatTitle}” is waiting for your approval`,
    body: `The agent wants to use ${request.tool}: ${what}`,
  };
}

export function createApprovalNotifier(win: NotifyWindow, openChat: (chatId: string) => void): ApprovalNotifier {
  let asked = false;
  return {
    ask() {
      const N = win.Notification;
      if (asked || !N || N.permission !== 'default') return;
      asked = true;
      N.requestPermission().catch(() => undefined);
    },
    approvalNeeded(request, chatTitle) {
      const N = win.Notification;
      if (!N || N.permission !== 'granted' || win.document.hasFocus()) return;
      const { title, body } = approvalNotice(request, chatTitle);
      // One notification per chat: a newer one replaces it rather than piling up.
      const n = new N(title, { body, tag: `berth-approval-${request.chatId}` });
      n.onclick = () => {
        win.focus();
        openChat(request.chatId);
        n.close();
      };
    },
  };
}

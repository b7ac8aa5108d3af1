import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/contract';
import { createApprovalNotifier, type NotifyWindow } from './notifications';

const request: ApprovalRequest = { approvalId: 'a1', chatId: 'c1', taskId: null, callId: 'k', tool: 'write_file', command: '/workspace/notes.md', cwd: null, detail: 'hi' };

function fakeWindow(permission: NotificationPermission, focused: boolean) {
  const made: Array<{ title: string; options?: NotificationOptions; onclick: (() => void) | null; closed: boolean }> = [];
  const state = { permission, focused, focusCalls: 0, asked: 0 };
  class FakeNotification {
    static get permission() {
      return state.permission;
    }
    static async requestPermission() {
      state.asked++;
      return state.permission;
    }
    onclick: (() => void) | null = null;
    constructor(title: string, options?: NotificationOptions) {
      const record = { title, options, onclick: null as (() => void) | null, closed: false };
      made.push(record);
      // The page sets onclick after construction: read it through the record.
      Object.defineProperty(this, 'onclick', { set: (f: () => void) => (record.onclick = f), get: () => record.onclick });
    }
    close() {
      const record = made.at(-1);
      if (record) record.closed = true;
    }
  }
  const win = {
    Notification: FakeNotification as unknown as NotifyWindow['Notification'],
    document: { hasFocus: () => state.focused },
    focus: () => state.focusCalls++,
  } satisfies NotifyWindow;
  return { win, made, state };
}

describe('the browser notification for an approval', () => {
  it('notifies when the window is not focused, and a click opens the chat', () => {
    const { win, made, state } = fakeWindow('granted', false);
    const opened: string[] = [];
    createApprovalNotifier(win, (id) => opened.push(id)).approvalNeeded(request, 'Notes');
    expect(made).toHaveLength(1);
    expect(made[0]?.title).toBe('“Notes” is waiting for your approval');
    expect(made[0]?.options?.body).toBe('The agent wants to use write_file: /workspace/notes.md');
    made[0]?.onclick?.();
    expect(opened).toEqual(['c1']);
    expect(state.focusCalls).toBe(1);
  });

  it('stays quiet in a focused window or without the permission, and asks for it once', () => {
    const focused = fakeWindow('granted', true);
    createApprovalNotifier(focused.win, () => {}).approvalNeeded(request, 'Notes');
    expect(focused.made).toHaveLength(0);

    const undecided = fakeWindow('default', false);
    const notifier = createApprovalNotifier(undecided.win, () => {});
    notifier.approvalNeeded(request, 'Notes');
    expect(undecided.made).toHaveLength(0);
    notifier.ask();
    notifier.ask();
    expect(undecided.state.asked).toBe(1);
  });
});

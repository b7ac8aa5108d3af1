import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, EventName, EventPayload } from '../../../shared/contract.js';
import type { EventListener } from '../events.js';
import { notifyApprovals, type ApprovalNotice } from './approvalNotifier.js';

const request: ApprovalRequest = {
  approvalId: 'a1',
  chatId: 'c1',
  taskId: null, callId: 'call-1',
  tool: 'terminal',
  command: 'rm -rf build\necho done',
  cwd: '/workspace',
  detail: null,
};

function setup(focused: boolean) {
  let listener: EventListener | null = null;
  const shown: ApprovalNotice[] = [];
  let focusCalls = 0;
  const state = { focused };
  const core = {
    onEvent(l: EventListener) {
      listener = l;
      return { dispose: () => (listener = null) };
    },
    call: async () => ({ chats: [{ id: 'c1', title: 'Fix the build' }] }),
  };
  const sub = notifyApprovals({ core, isFocused: () => state.focused, show: (n) => shown.push(n), focusWindow: () => focusCalls++ });
  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => listener?.(event, payload);
  return { shown, emit, state, sub, focusCalls: () => focusCalls };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the desktop notification for an approval', () => {
  it('names the chat and the command when the window is not focused, and a click brings the window back', async () => {
    const t = setup(false);
    t.emit('agent.approval', request);
    await settle();
    expect(t.shown).toHaveLength(1);
    expect(t.shown[0]?.title).toBe('“Fix the build” is waiting for your approval');
    expect(t.shown[0]?.body).toBe('The agent wants to use terminal: rm -rf build');
    t.shown[0]?.onClick();
    expect(t.focusCalls()).toBe(1);
  });

  it('stays quiet while the window has the focus, for other events, and once disposed', async () => {
    const t = setup(true);
    t.emit('agent.approval', request);
    t.state.focused = false;
    t.emit('agent.state', { chatId: 'c1', running: false, error: null });
    await settle();
    expect(t.shown).toHaveLength(0);
    t.sub.dispose();
    t.emit('agent.approval', request);
    await settle();
    expect(t.shown).toHaveLength(0);
  });
});

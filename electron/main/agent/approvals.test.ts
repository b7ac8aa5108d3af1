import { describe, expect, it } from 'vitest';
import { EventHub } from '../events.js';
import { ApprovalGate } from './approvals.js';

const request = (chatId: string) => ({ chatId, taskId: null, callId: 'c1', tool: 'terminal', command: 'rm -rf build', cwd: '/workspace', detail: null });

function gate() {
  const events = new EventHub();
  const seen: { event: string; payload: unknown }[] = [];
  events.on((event, payload) => seen.push({ event, payload }));
  return { gate: new ApprovalGate(events), seen };
}

describe('ApprovalGate', () => {
  it('waits for the user, and "allow for this chat" skips later asks in that chat only', async () => {
    const { gate: g, seen } = gate();
    const first = g.ask(request('a'), new AbortController().signal);
    const asked = seen.find((e) => e.event === 'agent.approval')?.payload as { approvalId: string };
    expect(g.pendingFor('a')).toHaveLength(1);
    g.answer('a', asked.approvalId, 'chat');
    expect((await first).outcome).toBe('allowed');
    expect((await g.ask(request('a'), new AbortController().signal)).outcome).toBe('allowed');
    expect(g.isAllowed('b')).toBe(false);
    expect(seen.filter((e) => e.event === 'agent.approval')).toHaveLength(1);
    expect(seen.filter((e) => e.event === 'agent.allowed').map((e) => e.payload)).toEqual([{ chatId: 'a', allowed: true }]);
    // Taken back: the next command asks again.
    g.revoke('a');
    expect(g.isAllowed('a')).toBe(false);
    expect(seen.filter((e) => e.event === 'agent.allowed').map((e) => e.payload)).toEqual([{ chatId: 'a', allowed: true }, { chatId: 'a', allowed: false }]);
    void g.ask(request('a'), new AbortController().signal);
    expect(seen.filter((e) => e.event === 'agent.approval')).toHaveLength(2);
  });

  it('refuses an answer from another chat, and a stopped turn drops its approval', async () => {
    const { gate: g, seen } = gate();
    const stop = new AbortController();
    const waiting = g.ask(request('a'), stop.signal);
    const { approvalId } = seen.find((e) => e.event === 'agent.approval')?.payload as { approvalId: string };
    expect(() => g.answer('b', approvalId, 'once')).toThrow(/no longer waiting/);
    stop.abort();
    expect((await waiting).outcome).toBe('cancelled');
    expect(seen.some((e) => e.event === 'agent.approvalDone')).toBe(true);
    expect(() => g.answer('a', approvalId, 'once')).toThrow(/no longer waiting/);
  });

  it('deny is an answer: nothing is allowed', async () => {
    const { gate: g, seen } = gate();
    const waiting = g.ask(request('a'), new AbortController().signal);
    const { approvalId } = seen.find((e) => e.event === 'agent.approval')?.payload as { approvalId: string };
    g.answer('a', approvalId, 'deny', '  not on main  ');
    expect(await waiting).toEqual({ outcome: 'denied', reason: 'not on main' });
    expect(g.isAllowed('a')).toBe(false);
  });
});

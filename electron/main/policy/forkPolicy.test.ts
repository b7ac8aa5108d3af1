import { describe, expect, it } from 'vitest';
import { forkCut, forkRefusal, lastTurn } from './forkPolicy.js';

const msgs = [
  { id: 'u1', role: 'user', taskId: null, content: 'one' },
  { id: 'a1', role: 'assistant', taskId: null, content: '' },
  { id: 's1', role: 'user', taskId: 't', content: 'sub' },
  { id: 'u2', role: 'user', taskId: null, content: 'two' },
  { id: 'a2', role: 'assistant', taskId: null, content: '' },
];
const cps = [
  { reason: 'turn', messageId: 'u1', commits: { c: 'one-start' }, endCommits: { c: 'one-end' } },
  { reason: 'manual', messageId: null, commits: { c: 'manual' } },
  { reason: 'turn', messageId: 'u2', commits: { c: 'two-start' } },
];

describe('forkCut', () => {
  it('after a turn: its messages up to the next user message, the copy as the turn ended', () => {
    const cut = forkCut(msgs, cps, 'u1', 'after', false);
    expect(cut).toMatchObject({ ok: true, keep: 3, checkpoints: 1 });
    expect(cut.ok && cut.commitFor('c')).toBe('one-end');
    expect(cut.ok && cut.commitFor('other')).toBeNull();
  });
  it('after a turn that kept no end: the next checkpoint holding the copy', () => {
    const cut = forkCut(msgs, [{ ...cps[0]!, endCommits: undefined }, ...cps.slice(1)], 'u1', 'after', false);
    expect(cut.ok && cut.commitFor('c')).toBe('manual');
  });
  it('before a turn: the messages before it, the copy as the turn started', () => {
    const cut = forkCut(msgs, cps, 'u2', 'before', true);
    expect(cut).toMatchObject({ ok: true, keep: 3, checkpoints: 2 });
    expect(cut.ok && cut.commitFor('c')).toBe('two-start');
  });
  it('refuses the last turn while it runs, and a message that is not a turn of the chat', () => {
    expect(forkCut(msgs, cps, 'u2', 'after', true)).toMatchObject({ ok: false, why: expect.stringContaining('still running') });
    expect(forkCut(msgs, cps, 's1', 'after', false)).toMatchObject({ ok: false });
  });
});

describe('forkRefusal and lastTurn', () => {
  it('names the folder the chat writes directly', () => {
    expect(forkRefusal([{ hostPath: '/r', mode: 'review' }, { hostPath: '/ro', mode: 'readonly' }])).toBeNull();
    expect(forkRefusal([{ hostPath: '/w', mode: 'readwrite' }])).toContain('"/w" directly (read-write)');
  });
  it('finds the chat’s own last user message', () => {
    expect(lastTurn(msgs)).toEqual({ id: 'u2', content: 'two' });
    expect(lastTurn([])).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { attentionOf, NO_ATTENTION, reduceAttention, type AttentionAction, type AttentionState } from './attention';

const run = (...actions: AttentionAction[]): AttentionState => actions.reduce(reduceAttention, NO_ATTENTION);

describe('what needs the user', () => {
  it('shows an approval until it is answered or the turn ends, before a finished turn', () => {
    let s = run({ type: 'approval', chatId: 'a', approvalId: '1' }, { type: 'approval', chatId: 'a', approvalId: '2' });
    expect(attentionOf(s, 'a')).toBe('approval');
    s = reduceAttention(s, { type: 'approvalDone', chatId: 'a', approvalId: '1' });
    expect(attentionOf(s, 'a')).toBe('approval');
    s = reduceAttention(s, { type: 'turnEnded', chatId: 'a', inView: false });
    expect(attentionOf(s, 'a')).toBe('finished');
    s = reduceAttention(s, { type: 'seen', chatId: 'a' });
    expect(attentionOf(s, 'a')).toBeNull();
  });

  it('does not mark the chat in view as finished; loaded approvals replace what was known', () => {
    expect(attentionOf(run({ type: 'turnEnded', chatId: 'a', inView: true }), 'a')).toBeNull();
    const s = run({ type: 'approval', chatId: 'b', approvalId: 'x' }, { type: 'approvalsLoaded', chatId: 'b', approvalIds: [] });
    expect(attentionOf(s, 'b')).toBeNull();
    expect(run({ type: 'turnEnded', chatId: 'c', inView: false }, { type: 'forget', chatId: 'c' })).toEqual(NO_ATTENTION);
  });
});

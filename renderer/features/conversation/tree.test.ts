import { describe, expect, it } from 'vitest';
import { agentMessage, toolCall } from '../../test/fakeApi';
import { buildTree, callName, childrenOf, formatDuration, sameSubtree } from './tree';

describe('buildTree', () => {
  it("puts a subagent's messages under their call, and one whose call is unknown at the top", () => {
    const parent = agentMessage({ id: 'p', chatId: 'c', toolCalls: [toolCall({ id: 'd1', name: 'delegate_task', subtaskId: 't1' })] });
    const sub = agentMessage({ id: 's', chatId: 'c', taskId: 't1', parentCallId: 'd1' });
    const nested = agentMessage({ id: 'n', chatId: 'c', taskId: 't2', parentCallId: 'd2' });
    const subWithCall = { ...sub, toolCalls: [toolCall({ id: 'd2', name: 'delegate_task', subtaskId: 't2' })] };
    const orphan = agentMessage({ id: 'o', chatId: 'c', taskId: 't9', parentCallId: 'gone' });
    const tree = buildTree([parent, subWithCall, nested, orphan]);
    expect(tree.top.map((m) => m.id)).toEqual(['p', 'o']);
    expect(childrenOf(tree, 't1').map((m) => m.id)).toEqual(['s']);
    expect(childrenOf(tree, 't2').map((m) => m.id)).toEqual(['n']);
    expect(childrenOf(tree, null)).toEqual([]);
  });

  it('never nests by tool-call id: a provider that repeats call ids cannot loop the tree or misplace a subagent', () => {
    const parent = agentMessage({ id: 'p', chatId: 'c', toolCalls: [toolCall({ id: 'call_0', name: 'delegate_task', subtaskId: 'sub-1' })] });
    const inside = agentMessage({ id: 's', chatId: 'c', taskId: 'sub-1', parentCallId: 'call_0', toolCalls: [toolCall({ id: 'call_0', name: 'terminal' })] });
    const later = agentMessage({ id: 'l', chatId: 'c', toolCalls: [toolCall({ id: 'call_0', name: 'terminal' })] });
    const tree = buildTree([parent, inside, later]);
    expect(tree.top.map((m) => m.id)).toEqual(['p', 'l']);
    expect(childrenOf(tree, 'sub-1').map((m) => m.id)).toEqual(['s']);
  });
});

describe('sameSubtree', () => {
  const parent = agentMessage({ id: 'p', chatId: 'c', toolCalls: [toolCall({ id: 'd1', name: 'delegate_task', subtaskId: 't1' })] });
  const sub = agentMessage({ id: 's', chatId: 'c', taskId: 't1', toolCalls: [toolCall({ id: 'd2', name: 'delegate_task', subtaskId: 't2' })] });
  const nested = agentMessage({ id: 'n', chatId: 'c', taskId: 't2', content: 'a', done: false });
  const other = agentMessage({ id: 'o', chatId: 'c', content: 'x', done: false });

  it("is true when a message's subagents, at every depth, are the same objects in a rebuilt tree", () => {
    const tree = buildTree([parent, sub, nested, other]);
    expect(sameSubtree(tree, buildTree([parent, sub, nested, { ...other, content: 'xy' }]), parent)).toBe(true);
    expect(sameSubtree(tree, buildTree([parent, sub, nested]), other)).toBe(true);
  });

  it('is false when a subagent message changed, however deep, or one was added', () => {
    const tree = buildTree([parent, sub, nested]);
    expect(sameSubtree(tree, buildTree([parent, sub, { ...nested, content: 'ab' }]), parent)).toBe(false);
    expect(sameSubtree(tree, buildTree([parent, { ...sub }, nested]), parent)).toBe(false);
    const more = agentMessage({ id: 'n2', chatId: 'c', taskId: 't2' });
    expect(sameSubtree(tree, buildTree([parent, sub, nested, more]), parent)).toBe(false);
  });
});

describe('card words', () => {
  it('names a card by tool and command, on one line, cut short', () => {
    expect(callName({ name: 'terminal', command: 'ls -la' })).toBe('terminal: ls -la');
    expect(callName({ name: 'list_dir', command: null })).toBe('list_dir');
    expect(callName({ name: 'terminal', command: 'cat <<EOF\nhi\nEOF' })).toBe('terminal: cat <<EOF hi EOF');
    const long = callName({ name: 'terminal', command: 'x'.repeat(300) });
    expect(long).toHaveLength(100);
    expect(long.endsWith('…')).toBe(true);
  });

  it('says durations plainly', () => {
    expect(formatDuration(320)).toBe('320 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
  });
});

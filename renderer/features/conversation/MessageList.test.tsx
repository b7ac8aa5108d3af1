import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { agentMessage, chatView, createFakeApi, profileView, toolCall } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { ConversationPane } from './ConversationPane';

// The cards, counted per message: a row that React skips draws none of its cards again.
const cardRenders = vi.hoisted(() => new Map<string, number>());
vi.mock('./ToolCallCard', async (importOriginal) => {
  const original = await importOriginal<typeof import('./ToolCallCard')>();
  return {
    ...original,
    ToolCallCard: (props: Parameters<typeof original.ToolCallCard>[0]) => {
      cardRenders.set(props.messageId, (cardRenders.get(props.messageId) ?? 0) + 1);
      return original.ToolCallCard(props);
    },
  };
});

const chat = chatView({ id: 'c1', title: 'One' });
const MODEL = { baseUrl: 'https://api.example.test/v1', model: 'small', approval: 'ask' as const };

beforeEach(() => {
  cardRenders.clear();
  // jsdom has no layout: give the list a height and each row one, so the virtualizer shows rows.
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(60);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  HTMLElement.prototype.scrollTo = () => {};
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('MessageList', () => {
  it("draws a streamed token in its own row only; a subagent's token redraws the row that holds it", async () => {
    const delegate = toolCall({ id: 'call-d', name: 'delegate_task', command: 'Count', status: 'running', subtaskId: 'task-1' });
    const api = createFakeApi({
      chats: [chat],
      profiles: [profileView('default', { agent: MODEL })],
      conversations: {
        c1: {
          messages: [
            agentMessage({ id: 'old', chatId: 'c1', content: 'Listed.', toolCalls: [toolCall({ name: 'terminal', command: 'ls' })], createdAt: 1 }),
            agentMessage({ id: 'parent', chatId: 'c1', content: 'Delegating.', toolCalls: [delegate], createdAt: 2 }),
            agentMessage({ id: 'sub', chatId: 'c1', taskId: 'task-1', parentCallId: 'call-d', content: 'Coun', done: false, createdAt: 3 }),
            agentMessage({ id: 'live', chatId: 'c1', content: 'Wor', done: false, toolCalls: [toolCall({ name: 'terminal', command: 'pwd' })], createdAt: 4 }),
          ],
          running: true,
          approvals: [],
        },
      },
    });
    renderWithApp(<ConversationPane chat={chat} onOpenProfile={() => {}} />, api);
    await screen.findByRole('group', { name: 'terminal: pwd' });
    const before = { old: cardRenders.get('old'), parent: cardRenders.get('parent'), live: cardRenders.get('live') };
    expect(before.old).toBeGreaterThan(0);

    act(() => api.pushAgent('agent.delta', { chatId: 'c1', messageId: 'live', text: 'king' }));
    expect(cardRenders.get('live')).toBeGreaterThan(before.live ?? 0);
    expect(cardRenders.get('old')).toBe(before.old);
    expect(cardRenders.get('parent')).toBe(before.parent);

    // The subagent's message is not a row: the row of the call it is under draws it.
    act(() => api.pushAgent('agent.delta', { chatId: 'c1', messageId: 'sub', text: 'ting' }));
    expect(cardRenders.get('parent')).toBeGreaterThan(before.parent ?? 0);
    expect(cardRenders.get('old')).toBe(before.old);
    const subagent = within(screen.getByRole('group', { name: 'delegate_task: Count' })).getByRole('article', { name: 'Subagent' });
    await waitFor(() => expect(subagent.textContent).toContain('Counting'));
  });
});

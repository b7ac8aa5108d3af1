import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Checkpoint } from '../../../shared/contract';
import { agentMessage, chatView, createFakeApi, profileView, toolCall } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { ConversationPane } from '../conversation/ConversationPane';
import { endsOfTurns } from '../conversation/MessageList';

const chat = chatView({ id: 'c1', title: 'One' });
const MODEL = { baseUrl: 'https://api.example.test/v1', model: 'small', approval: 'auto' as const };

function checkpoint(messageId: string, changedFiles: string[]): Checkpoint {
  return { id: `cp-${messageId}`, chatId: 'c1', reason: 'turn', messageId, label: 'Turn', createdAt: 1, changedFiles };
}

beforeEach(() => {
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(60);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  HTMLElement.prototype.scrollTo = () => {};
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('endsOfTurns', () => {
  it('maps the last message of each turn to the user message that started it', () => {
    const m = (id: string, role: 'user' | 'assistant') => agentMessage({ id, chatId: 'c1', role });
    const ends = endsOfTurns([m('a', 'assistant'), m('u1', 'user'), m('r1', 'assistant'), m('r2', 'assistant'), m('u2', 'user')]);
    expect([...ends]).toEqual([
      ['r2', 'u1'],
      ['u2', 'u2'],
    ]);
  });
});

describe('Undo this turn', () => {
  function setup() {
    const api = createFakeApi({
      chats: [chat],
      profiles: [profileView('default', { agent: MODEL })],
      conversations: {
        c1: {
          messages: [
            agentMessage({ id: 'u1', chatId: 'c1', role: 'user', content: 'Write the files', createdAt: 1 }),
            agentMessage({
              id: 'r1',
              chatId: 'c1',
              content: 'Done.',
              toolCalls: [toolCall({ name: 'write_file', command: 'write /workspace/site/a.txt' })],
              createdAt: 2,
            }),
            agentMessage({ id: 'u2', chatId: 'c1', role: 'user', content: 'Just talk', createdAt: 3 }),
            agentMessage({ id: 'r2', chatId: 'c1', content: 'Sure.', createdAt: 4 }),
          ],
          running: false,
          approvals: [],
        },
      },
    });
    api.checkpoints['c1'] = [checkpoint('u1', ['a.txt', 'src/b.ts']), checkpoint('u2', [])];
    return renderWithApp(<ConversationPane chat={chat} onOpenProfile={() => {}} />, api);
  }

  it("shows the files a turn changed at its end, and undoes it after the user confirms", async () => {
    const { api } = setup();
    const group = await screen.findByRole('group', { name: 'Files this turn changed' });
    expect(group.textContent).toContain('This turn changed 2 files:');
    expect(within(group).getByText('a.txt')).toBeTruthy();
    expect(within(group).getByText('src/b.ts')).toBeTruthy();
    // It ends the turn that changed files (the reply), not the one that changed none.
    expect(screen.getAllByRole('group', { name: 'Files this turn changed' })).toHaveLength(1);
    expect(group.closest('article')?.textContent).toContain('Done.');

    fireEvent.click(within(group).getByRole('button', { name: 'Undo this turn' }));
    const dialog = await screen.findByRole('dialog', { name: 'Undo this turn?' });
    expect(dialog.textContent).toContain('Your own folder is not touched.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Undo this turn' }));
    await within(group).findByText('Undid this turn: 2 files restored.');
    expect(api.callsTo('review.undoTurn')).toEqual([{ chatId: 'c1', messageId: 'u1' }]);
  });

  it('cannot undo while a turn runs, and picks up a restore point that arrives later', async () => {
    const { api } = setup();
    await screen.findByRole('group', { name: 'Files this turn changed' });
    act(() => api.pushAgent('agent.state', { chatId: 'c1', running: true, error: null }));
    await waitFor(() => expect((screen.getByRole('button', { name: 'Undo this turn' }) as HTMLButtonElement).disabled).toBe(true));
    // The second turn's files show once its restore point reports them.
    api.checkpoints['c1'] = [checkpoint('u1', ['a.txt', 'src/b.ts']), checkpoint('u2', ['c.txt'])];
    act(() => api.emit('review.changed', { chatId: 'c1', count: 3, version: 'v2' }));
    await waitFor(() => expect(screen.getAllByRole('group', { name: 'Files this turn changed' })).toHaveLength(2));
  });
});

import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { EMPTY_CONVERSATION } from '../../stores/agent';
import { agentMessage, chatView, createFakeApi, profileView } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { AgentOptions } from './AgentOptions';
import { MessageView } from './MessageView';
import { buildTree } from './tree';

const instructions = agentMessage({
  chatId: 'c1', id: 'n1', role: 'assistant', content: 'Using AGENTS.md from /home/me/app', createdAt: 2, notice: { kind: 'instructions', folders: ['/home/me/app'], nested: [] },
});
const summary = agentMessage({
  chatId: 'c1', id: 'n2', role: 'assistant', content: 'Earlier turns summarised', createdAt: 3,
  notice: { kind: 'summary', summary: 'The user asked for **tests**.', messages: 12, through: 'u1' }, usage: { input: 900, output: 100 },
});
const answer = agentMessage({ chatId: 'c1', id: 'a1', role: 'assistant', content: 'Hi.', createdAt: 4, usage: { input: 1200, output: 30 } });

describe('Berth’s notices in a conversation', () => {
  it('says which AGENTS.md is in use, and that earlier turns were summarised, with the summary to open', () => {
    const tree = buildTree([instructions, summary, answer]);
    render(<>{[instructions, summary, answer].map((m) => <MessageView key={m.id} message={m} tree={tree} />)}</>);
    expect(screen.getByRole('note', { name: 'Instructions in use' }).textContent).toBe('Using AGENTS.md from /home/me/app');
    const note = screen.getByRole('note', { name: 'Earlier turns summarised' });
    expect(note.textContent).toContain('Earlier turns summarised (12 messages)');
    expect(within(note).getByText('tests').tagName).toBe('STRONG');
    expect(screen.getAllByLabelText('Tokens').map((t) => t.textContent)).toEqual(['1,200 tokens in · 30 out']);
  });
});

describe('the chat’s agent options', () => {
  it('counts the chat’s tokens, turns AGENTS.md off and picks a model from the provider’s list for this chat', async () => {
    const api = createFakeApi({
      chats: [chatView({ id: 'c1', title: 'One' })],
      profiles: [profileView('default', { agent: { baseUrl: 'https://api.example.test/v1', model: 'small', approval: 'ask' } })],
      conversations: { c1: { messages: [], running: false, approvals: [] } },
    });
    api.providerModels = ['small', 'large'];
    const conversation = { ...EMPTY_CONVERSATION, messages: [instructions, summary, answer], contextWindow: 32_768 };
    renderWithApp(<AgentOptions chatId="c1" conversation={conversation} profileModel="small" />, api);
    expect(screen.getByLabelText('Tokens in this chat').textContent).toBe('2,100 tokens in · 130 out · context window 32,768');
    fireEvent.click(screen.getByRole('checkbox', { name: 'Use AGENTS.md' }));
    await waitFor(() => expect(api.conversations.c1?.options).toEqual({ instructions: false, model: null }));
    const select = screen.getByRole('combobox', { name: 'Model for this chat' });
    fireEvent.focus(select);
    await screen.findByRole('option', { name: 'large' });
    fireEvent.change(select, { target: { value: 'large' } });
    await waitFor(() => expect(api.conversations.c1?.options).toEqual({ instructions: false, model: 'large' }));
  });
});

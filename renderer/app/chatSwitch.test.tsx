/**
 * Chat switches with the chat view kept mounted (App changes the chat it shows): each
 * chat shows only its own messages, draft, approvals, header state and terminal tabs, during
 * and after a switch, and late answers for the chat the user left never show in the next one.
 */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest, TerminalView } from '../../shared/contract';
import { agentMessage, chatView, createFakeApi, profileView } from '../test/fakeApi';
import { renderWithApp } from '../test/render';
import { App } from './App';

const MODEL = { baseUrl: 'https://api.example.test/v1', model: 'small', approval: 'ask' as const };
const alpha = chatView({
  id: 'alpha',
  title: 'Alpha chat',
  createdAt: 2,
  attachments: [{ hostPath: '/home/me/alpha-src', containerPath: '/workspace/alpha-src', readOnly: true, mode: 'readonly', review: null, attachedAt: 1, writeWarning: null }],
});
const bravo = chatView({ id: 'bravo', title: 'Bravo chat', createdAt: 1 });

function approval(chatId: string, command: string): ApprovalRequest {
  return { approvalId: `ap-${chatId}`, chatId, taskId: null, callId: `call-${chatId}`, tool: 'terminal', command, cwd: '/workspace', detail: null };
}

function terminal(chatId: string, title: string): TerminalView {
  return { terminalId: `term-${chatId}`, chatId, title, state: 'running', exitReason: null, cols: 80, rows: 24 };
}

function setup() {
  const api = createFakeApi({
    chats: [alpha, bravo],
    profiles: [profileView('default', { agent: MODEL })],
    conversations: {
      alpha: { messages: [agentMessage({ chatId: 'alpha', content: 'alpha says hello', createdAt: 1 })], running: true, approvals: [approval('alpha', 'rm -rf alpha-build')] },
      bravo: { messages: [agentMessage({ chatId: 'bravo', content: 'bravo says hello', createdAt: 1 })], running: false, approvals: [] },
    },
  });
  api.terminals = [terminal('alpha', 'alpha shell'), terminal('bravo', 'bravo shell')];
  api.sandbox.set('alpha', { chatId: 'alpha', state: 'running', key: 'k-alpha', containerId: 'c-alpha', containerName: 'berth-alpha', image: 'img', networkName: null, error: null });
  api.sandbox.set('bravo', { chatId: 'bravo', state: 'stopped', key: 'k-bravo', containerId: 'c-bravo', containerName: 'berth-bravo', image: 'img', networkName: null, error: null });
  return renderWithApp(<App />, api);
}

const main = () => screen.getByRole('main');
const chatButton = (name: string) => within(screen.getByRole('navigation', { name: 'Chats' })).getByRole('button', { name });
/** The header's sandbox section (its details hold another region named Sandbox use). */
const sandboxPanel = () => main().querySelector('section.sandbox') as HTMLElement;
const messageBox = () => within(main()).getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;

/** What the chat view shows now, as text (title, header, conversation, terminal tabs). */
const shown = () => main().textContent ?? '';

async function open(title: string, own: string) {
  await waitFor(() => chatButton(title));
  fireEvent.click(chatButton(title));
  await waitFor(() => expect(shown()).toContain(own));
}

beforeEach(() => {
  // jsdom has no layout: give the message list a size so the virtualizer shows rows.
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(60);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  HTMLElement.prototype.scrollTo = function scrollTo() {};
});

afterEach(() => {
  vi.restoreAllMocks();
});

// Whole-app renders: slow on a loaded machine.
describe('chat switch', { timeout: 30_000 }, () => {
  it("shows each chat's own messages, approvals, header and terminals, and nothing of the other", async () => {
    setup();
    await open('Alpha chat', 'alpha says hello');
    // Alpha: its message, its approval, its folder, its sandbox, its terminal tab.
    expect(within(main()).getByRole('heading', { level: 1 }).textContent).toBe('Alpha chat');
    expect(within(main()).getByRole('group', { name: 'Approval needed' }).textContent).toContain('rm -rf alpha-build');
    expect(shown()).toContain('/home/me/alpha-src');
    expect(sandboxPanel().textContent).toContain('running');
    await within(main()).findByRole('tab', { name: 'alpha shell' });

    await open('Bravo chat', 'bravo says hello');
    // In the same render that shows Bravo's title, nothing of Alpha's is on screen.
    expect(within(main()).getByRole('heading', { level: 1 }).textContent).toBe('Bravo chat');
    expect(shown()).not.toContain('alpha says hello');
    expect(shown()).not.toContain('rm -rf alpha-build');
    expect(shown()).not.toContain('/home/me/alpha-src');
    expect(shown()).not.toContain('alpha shell');
    expect(shown()).not.toContain('Waiting for your approval');
    expect(within(main()).queryByRole('group', { name: 'Approval needed' })).toBeNull();
    await waitFor(() => expect(sandboxPanel().textContent).toContain('stopped'));
    await within(main()).findByRole('tab', { name: 'bravo shell' });
    expect(messageBox().getAttribute('placeholder')).toMatch(/^Ask the agent/);

    // And back: Alpha as it was, nothing of Bravo.
    await open('Alpha chat', 'alpha says hello');
    expect(shown()).not.toContain('bravo says hello');
    expect(shown()).not.toContain('bravo shell');
    expect(within(main()).getByRole('group', { name: 'Approval needed' }).textContent).toContain('rm -rf alpha-build');
    expect(sandboxPanel().textContent).toContain('running');
  });

  it("keeps each chat's draft to itself", async () => {
    setup();
    await open('Alpha chat', 'alpha says hello');
    fireEvent.change(messageBox(), { target: { value: 'a draft for alpha' } });
    await open('Bravo chat', 'bravo says hello');
    expect(messageBox().value).toBe('');
    fireEvent.change(messageBox(), { target: { value: 'bravo wants this' } });
    await open('Alpha chat', 'alpha says hello');
    expect(messageBox().value).toBe('a draft for alpha');
    await open('Bravo chat', 'bravo says hello');
    expect(messageBox().value).toBe('bravo wants this');
    // Leave no drafts behind for other tests (Composer keeps them for the page's life).
    fireEvent.change(messageBox(), { target: { value: '' } });
    await open('Alpha chat', 'alpha says hello');
    fireEvent.change(messageBox(), { target: { value: '' } });
  });

  it('closes what the user opened in one chat (sandbox details, network log) when another is shown', async () => {
    setup();
    await open('Alpha chat', 'alpha says hello');
    fireEvent.click(within(sandboxPanel()).getByRole('button', { name: 'Sandbox details' }));
    expect(sandboxPanel().textContent).toContain('berth-alpha');
    await open('Bravo chat', 'bravo says hello');
    expect(within(sandboxPanel()).getByRole('button', { name: 'Sandbox details' }).getAttribute('aria-expanded')).toBe('false');
    expect(shown()).not.toContain('berth-alpha');
  });

  it("never shows a late answer for the chat the user left in the next one", async () => {
    const rendered = setup();
    const { api } = rendered;
    await open('Bravo chat', 'bravo says hello');
    // Alpha's history answers only after the user has gone on to Bravo.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    api.handle('agent.history', async ({ chatId }) => {
      if (chatId === 'alpha') await gate;
      const c = api.conversations[chatId] ?? { messages: [], running: false, approvals: [] };
      return { messages: c.messages, running: c.running, approvals: c.approvals, allowedForChat: false };
    });
    fireEvent.click(chatButton('Alpha chat'));
    fireEvent.click(chatButton('Bravo chat'));
    await waitFor(() => expect(within(main()).getByRole('heading', { level: 1 }).textContent).toBe('Bravo chat'));
    await act(async () => {
      release();
      await gate;
    });
    await waitFor(() => expect(shown()).toContain('bravo says hello'));
    expect(shown()).not.toContain('alpha says hello');
    expect(shown()).not.toContain('rm -rf alpha-build');
    // An event for Alpha while Bravo is shown stays Alpha's.
    act(() => api.pushAgent('agent.message', { message: agentMessage({ chatId: 'alpha', content: 'alpha again', createdAt: 5 }) }));
    expect(shown()).not.toContain('alpha again');
    await open('Alpha chat', 'alpha again');
    expect(shown()).not.toContain('bravo says hello');
  });
});

/**
 * What the chat header's tests share (ChatHeader.test.tsx, AttachConfirm.test.tsx): the header of
 * the selected chat, a chat with one read-only folder, and the attach dialog's steps.
 */
import { createElement } from 'react';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { expect } from 'vitest';
import { chatView, createFakeApi } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { useChats } from '../../services/context';
import { ChatHeader } from './ChatHeader';

/**
 * Clicks "Choose this folder" once it can be pressed: while the dialog's first listing loads the
 * button is disabled (a user waits for it too), and under load that listing can come after the
 * path is typed; a click on the disabled button would do nothing.
 */
export async function chooseThisFolder(dialog: HTMLElement): Promise<void> {
  const button = within(dialog).getByRole('button', { name: 'Choose this folder' }) as HTMLButtonElement;
  await waitFor(() => expect(button.disabled).toBe(false));
  fireEvent.click(button);
}

/** Main's preview of a change that keeps the running container (nothing is stopped, no token). */
export const KEEPS = { recreates: false, reason: null, running: [], needsConfirmation: false, summary: null, token: null };

/** Types `folder` into the folder browser and chooses it. */
export async function chooseFolder(dialog: HTMLElement, folder: string): Promise<void> {
  fireEvent.change(within(dialog).getByRole('textbox', { name: 'Folder path' }), { target: { value: folder } });
  await chooseThisFolder(dialog);
}

export function SelectedHeader() {
  const chat = useChats((s) => s.chats.find((c) => c.id === s.selectedId) ?? null);
  return chat ? createElement(ChatHeader, { chat }) : null;
}

/** "Attach folder…", keep the mode offered (Review), "Choose folder…". */
export async function openAttach(): Promise<void> {
  fireEvent.click(await screen.findByRole('button', { name: 'Attach folder…' }));
  const how = await screen.findByRole('dialog', { name: 'Attach a folder' });
  fireEvent.click(within(how).getByRole('button', { name: 'Choose folder…' }));
}

/** The header of chat c1, which has /home/me/notes attached read-only. */
export function setup() {
  const api = createFakeApi({
    chats: [
      chatView({
        id: 'c1',
        title: 'Site',
        attachments: [{ hostPath: '/home/me/notes', containerPath: '/workspace/notes', readOnly: true, mode: 'readonly', review: null, attachedAt: 1, writeWarning: null }],
      }),
    ],
  });
  return renderWithApp(createElement(SelectedHeader), api);
}

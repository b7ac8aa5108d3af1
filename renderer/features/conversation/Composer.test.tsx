import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Composer } from './Composer';

const base = { running: false, sending: false, stopping: false, onStop: () => undefined };

describe('Composer', () => {
  it('keeps a message sent before the history loaded, says so, and sends it once it has', async () => {
    const onSend = vi.fn(async () => true);
    const { rerender } = render(<Composer chatId="early" ready={false} onSend={onSend} {...base} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    fireEvent.change(box, { target: { value: 'hello' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(onSend).not.toHaveBeenCalled();
    expect((box as HTMLTextAreaElement).value).toBe('hello');
    expect(box.getAttribute('placeholder')).toMatch(/goes once it has loaded/);
    expect(screen.getByRole('button', { name: 'Sending…' })).toBeTruthy();
    rerender(<Composer chatId="early" ready onSend={onSend} {...base} />);
    await vi.waitFor(() => expect(onSend).toHaveBeenCalledWith('hello'));
    await vi.waitFor(() => expect((box as HTMLTextAreaElement).value).toBe(''));
  });

  it('does not send the kept message when the loaded history shows a turn running: the text stays', async () => {
    const onSend = vi.fn(async () => true);
    const { rerender } = render(<Composer chatId="busy" ready={false} onSend={onSend} {...base} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    fireEvent.change(box, { target: { value: 'later' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    rerender(<Composer chatId="busy" ready onSend={onSend} {...base} running />);
    await new Promise((r) => setTimeout(r, 0));
    expect(onSend).not.toHaveBeenCalled();
    expect((box as HTMLTextAreaElement).value).toBe('later');
  });

  it('keeps the draft across a reload, per chat, and forgets it once sent', async () => {
    const onSend = vi.fn(async () => true);
    const first = render(<Composer chatId="kept" onSend={onSend} {...base} />);
    fireEvent.change(screen.getByRole('textbox', { name: 'Message' }), { target: { value: 'half a thought' } });
    first.unmount();
    // A reload: a new page, the same storage.
    const again = render(<Composer chatId="kept" onSend={onSend} {...base} />);
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    expect(box.value).toBe('half a thought');
    expect(window.localStorage.getItem('berth.draft.kept')).toBe('half a thought');
    fireEvent.keyDown(box, { key: 'Enter' });
    await vi.waitFor(() => expect(box.value).toBe(''));
    expect(window.localStorage.getItem('berth.draft.kept')).toBeNull();
    again.unmount();
    render(<Composer chatId="other" onSend={onSend} {...base} />);
    expect((screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement).value).toBe('');
  });
});

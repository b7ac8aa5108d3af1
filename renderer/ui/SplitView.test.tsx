import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { SplitView } from './SplitView';

afterEach(() => {
  window.localStorage.clear();
});

describe('SplitView', () => {
  it('moves the separator with the keys, within bounds, and remembers it', () => {
    const view = <SplitView label="Resize panes" storageKey="test.split" first={<p>left</p>} second={<p>right</p>} initialPercent={55} />;
    const { unmount } = render(view);
    const separator = screen.getByRole('separator', { name: 'Resize panes' });
    expect(separator.getAttribute('aria-valuenow')).toBe('55');
    fireEvent.keyDown(separator, { key: 'ArrowLeft' });
    expect(separator.getAttribute('aria-valuenow')).toBe('50');
    fireEvent.keyDown(separator, { key: 'End' });
    expect(separator.getAttribute('aria-valuenow')).toBe('80');
    fireEvent.keyDown(separator, { key: 'ArrowRight' });
    expect(separator.getAttribute('aria-valuenow')).toBe('80');
    unmount();
    render(view);
    expect(screen.getByRole('separator', { name: 'Resize panes' }).getAttribute('aria-valuenow')).toBe('80');
  });
});

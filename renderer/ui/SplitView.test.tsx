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

  it('one above the other, the up and down keys move it; without a second pane there is no separator', () => {
    const { rerender } = render(<SplitView label="Resize" storageKey="test.column" direction="column" first={<p>top</p>} second={<p>bottom</p>} initialPercent={40} />);
    const separator = screen.getByRole('separator', { name: 'Resize' });
    expect(separator.getAttribute('aria-orientation')).toBe('horizontal');
    fireEvent.keyDown(separator, { key: 'ArrowDown' });
    expect(separator.getAttribute('aria-valuenow')).toBe('45');
    fireEvent.keyDown(separator, { key: 'ArrowUp' });
    fireEvent.keyDown(separator, { key: 'ArrowUp' });
    expect(separator.getAttribute('aria-valuenow')).toBe('35');
    const top = screen.getByText('top');
    rerender(<SplitView label="Resize" storageKey="test.column" direction="column" first={<p>top</p>} />);
    expect(screen.queryByRole('separator')).toBeNull();
    // The same element: what the first pane holds is kept, not made again.
    expect(screen.getByText('top')).toBe(top);
  });
});

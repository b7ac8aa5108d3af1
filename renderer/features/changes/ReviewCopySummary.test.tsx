import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ReviewCopyInfo } from '../../../shared/contract';
import { ReviewCopySummary } from './ReviewCopySummary';

const info = (over: Partial<ReviewCopyInfo>): ReviewCopyInfo => ({
  kind: 'git',
  branch: 'berth/c1',
  baseCommit: '627c411aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  uncommittedFiles: [],
  uncommittedCount: 0,
  contents: { ignored: false, include: [] },
  excludedSecrets: [],
  fileCount: 1,
  createdAt: 0,
  changedCount: 0,
  ...over,
});

describe('ReviewCopySummary', () => {
  it('counts files and uncommitted changes in words that agree with the number', () => {
    expect(render(<ReviewCopySummary info={info({})} />).container.textContent).toBe(
      'Copy of HEAD 627c411 (no uncommitted changes), on branch berth/c1; 1 file, ignored files left out.',
    );
    expect(render(<ReviewCopySummary info={info({ fileCount: 1200, uncommittedCount: 1, kind: 'folder', branch: null })} />).container.textContent).toBe(
      'Copy of the folder; 1,200 files, ignored files left out.',
    );
  });

  it('names one or two secret-looking files it left out; more are a count the user can open, so the header stays short', () => {
    const two = render(<ReviewCopySummary info={info({ excludedSecrets: ['.env', 'id_rsa'] })} />);
    expect(two.container.textContent).toBe(
      'Copy of HEAD 627c411 (no uncommitted changes), on branch berth/c1; 1 file, ignored files left out. Left out as secret-looking: .env, id_rsa (attach again naming them to include them).',
    );
    two.unmount();
    const many = Array.from({ length: 8 }, (_, i) => `node_modules/pkg${i}/test/fixtures/key${i}.pem`);
    const { container } = render(<ReviewCopySummary info={info({ excludedSecrets: many })} />);
    // Before: the first five paths inline, three lines of the header on a laptop's window.
    expect(container.textContent).toBe(
      'Copy of HEAD 627c411 (no uncommitted changes), on branch berth/c1; 1 file, ignored files left out. 8 secret-looking files left out (attach again naming them to include them). Show them',
    );
    const toggle = screen.getByRole('button', { name: 'Show them' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(screen.getByRole('button', { name: 'Hide them' }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByRole('list', { name: 'Secret-looking files left out' }).textContent).toBe(many.join(''));
  });
});


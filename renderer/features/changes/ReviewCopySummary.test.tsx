import { render } from '@testing-library/react';
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
});

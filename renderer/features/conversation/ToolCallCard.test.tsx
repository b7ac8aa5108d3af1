import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { toolCall } from '../../test/fakeApi';
import { ToolCallCard } from './ToolCallCard';

const DIFF = [
  'diff --git a/workspace/app.sh b/workspace/app.sh',
  '--- a/workspace/app.sh',
  '+++ b/workspace/app.sh',
  '@@ -1,3 +1,3 @@',
  ' #!/bin/sh',
  '-echo old',
  '+echo new',
  ' exit 0',
  '',
].join('\n');

describe('ToolCallCard', () => {
  it('shows an edit as a diff of the file it changed: the removed line and the added one', () => {
    const call = toolCall({ name: 'edit_file', command: 'edit /workspace/app.sh', output: 'Edited /workspace/app.sh: 1 replacement.', diff: DIFF });
    render(<ToolCallCard call={call} messageId="m1" />);
    const card = screen.getByRole('group', { name: 'edit_file: edit /workspace/app.sh' });
    const diff = within(card).getByRole('region', { name: 'Diff of /workspace/app.sh' });
    const removed = [...diff.querySelectorAll('.diff-code-delete')].map((e) => e.textContent);
    const added = [...diff.querySelectorAll('.diff-code-insert')].map((e) => e.textContent);
    expect(removed).toEqual(['echo old']);
    expect(added).toEqual(['echo new']);
  });

  it('draws no diff for a tool without one', () => {
    render(<ToolCallCard call={toolCall({ name: 'terminal', command: 'ls', output: 'a' })} messageId="m2" />);
    expect(screen.queryByRole('region', { name: /^Diff of/ })).toBeNull();
  });
});

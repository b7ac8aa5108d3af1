import { describe, expect, it } from 'vitest';
import { overlapProblem } from './attachmentOverlap.js';

const mounted = (hostPath: string, readOnly = false) => ({ hostPath, readOnly, owner: 'the chat "X"' });

describe('overlapProblem', () => {
  it('refuses a folder inside a folder another sandbox can write', () => {
    expect(overlapProblem({ hostPath: '/p/sub', readOnly: false }, [mounted('/p')])).toMatch(/inside \/p, which the chat "X" can change/);
    expect(overlapProblem({ hostPath: '/p/sub', readOnly: true }, [mounted('/p')])).not.toBeNull();
  });
  it('allows it when the outer folder is read-only', () => {
    expect(overlapProblem({ hostPath: '/p/sub', readOnly: false }, [mounted('/p', true)])).toBeNull();
  });
  it('refuses a writable folder that contains a folder mounted elsewhere, allows it read-only', () => {
    expect(overlapProblem({ hostPath: '/p', readOnly: false }, [mounted('/p/sub', true)])).toMatch(/contains \/p\/sub/);
    expect(overlapProblem({ hostPath: '/p', readOnly: true }, [mounted('/p/sub')])).toBeNull();
  });
  it('allows the same folder in two chats, and unrelated folders', () => {
    expect(overlapProblem({ hostPath: '/p', readOnly: false }, [mounted('/p')])).toBeNull();
    expect(overlapProblem({ hostPath: '/p2', readOnly: false }, [mounted('/p'), mounted('/q/p')])).toBeNull();
  });
});

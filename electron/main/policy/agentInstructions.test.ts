import { describe, expect, it } from 'vitest';
import { classifyFound, instructionsPrompt, MAX_INSTRUCTIONS_BYTES, nearestNested, nestedNote } from './agentInstructions.js';

describe('classifyFound', () => {
  it('puts a folder’s own AGENTS.md at the root and the deeper ones nested, ignoring anything else', () => {
    const listing = ['/workspace/app/AGENTS.md', '/workspace/app/pkg/a/AGENTS.md', '/workspace/lib/AGENTS.md', '/etc/AGENTS.md', 'relative/AGENTS.md', '/workspace/app/README.md', ''].join('\n');
    expect(classifyFound(listing, ['/workspace/app', '/workspace/lib'])).toEqual({
      roots: ['/workspace/app/AGENTS.md', '/workspace/lib/AGENTS.md'],
      nested: ['/workspace/app/pkg/a/AGENTS.md'],
    });
  });
});

describe('nearestNested', () => {
  const nested = ['/workspace/pkg/AGENTS.md', '/workspace/pkg/sub/AGENTS.md', '/workspace/other/AGENTS.md'];
  it('picks the deepest AGENTS.md whose folder holds the file', () => {
    expect(nearestNested('/workspace/pkg/sub/x.ts', nested)).toBe('/workspace/pkg/sub/AGENTS.md');
    expect(nearestNested('/workspace/pkg/y.ts', nested)).toBe('/workspace/pkg/AGENTS.md');
    expect(nearestNested('/workspace/pkg', nested)).toBe('/workspace/pkg/AGENTS.md');
    expect(nearestNested('/workspace/pkgx/y.ts', nested)).toBeNull();
    expect(nearestNested('/workspace/z.ts', nested)).toBeNull();
  });
});

describe('instructionsPrompt', () => {
  it('gives root files whole, lists nested ones by path, says when one was cut, and is empty with none', () => {
    expect(instructionsPrompt({ roots: [], nested: [] })).toBe('');
    const text = instructionsPrompt({ roots: [{ folder: '/workspace', path: '/workspace/AGENTS.md', text: 'RULE', bytes: 4 }], nested: ['/workspace/pkg/AGENTS.md'] });
    expect(text).toContain('--- /workspace/AGENTS.md (applies to everything under /workspace) ---\nRULE\n');
    expect(text).toContain('/workspace/pkg/AGENTS.md');
    expect(text).not.toContain('cut');
    const big = instructionsPrompt({ roots: [{ folder: '/w', path: '/w/AGENTS.md', text: 'x', bytes: MAX_INSTRUCTIONS_BYTES + 1 }], nested: [] });
    expect(big).toContain(`[… cut: this AGENTS.md is ${MAX_INSTRUCTIONS_BYTES + 1} bytes; read the rest with read_file]`);
  });

  it('says which folder a nested file’s text applies to', () => {
    expect(nestedNote('/workspace/pkg/AGENTS.md', 'TABS', 4)).toContain('[Instructions from /workspace/pkg/AGENTS.md, which apply to files under /workspace/pkg');
  });
});

import { describe, expect, it } from 'vitest';
import { agentBaseDir, resolveAgentPath } from './agentPaths.js';

const one = [{ containerPath: '/workspace', readOnly: false }];
const two = [
  { containerPath: '/workspace/app', readOnly: false },
  { containerPath: '/workspace/docs', readOnly: true },
];

describe('resolveAgentPath', () => {
  it('resolves relative paths from the one folder, or from /workspace above several', () => {
    expect(resolveAgentPath('src/a.ts', one, 'read')).toEqual({ ok: true, path: '/workspace/src/a.ts' });
    expect(resolveAgentPath('app/x', two, 'write')).toEqual({ ok: true, path: '/workspace/app/x' });
    expect(agentBaseDir([])).toBeNull();
  });

  it('refuses anything outside the attached folders, however it is written', () => {
    for (const p of ['/etc/passwd', '../etc/passwd', '/workspace/../etc', '/home/berth/.bashrc', '/workspaces/x']) {
      const r = resolveAgentPath(p, one, 'read');
      expect(r.ok, p).toBe(false);
    }
    expect(resolveAgentPath('/workspace/other', two, 'read')).toMatchObject({ ok: false, problem: expect.stringContaining('outside the attached folders') });
  });

  it('writes only into read-write folders, and never over a folder itself', () => {
    expect(resolveAgentPath('/workspace/docs/a.md', two, 'read')).toEqual({ ok: true, path: '/workspace/docs/a.md' });
    expect(resolveAgentPath('/workspace/docs/a.md', two, 'write')).toMatchObject({ ok: false, problem: expect.stringContaining('read-only') });
    expect(resolveAgentPath('/workspace', one, 'write').ok).toBe(false);
  });

  it('says so when no folder is attached, and refuses control characters', () => {
    expect(resolveAgentPath('a.txt', [], 'read')).toMatchObject({ ok: false, problem: expect.stringContaining('No folder is attached') });
    expect(resolveAgentPath('a\nb', one, 'read').ok).toBe(false);
  });
});

// Property-based tests (fast-check) of the checks a folder passes before anything touches the disk.
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sensitivePathReason, type HostFacts } from '../policy/sensitivePaths.js';
import { FolderRefused, resolveAttachableFolder } from './folderValidation.js';

const facts: HostFacts = {
  homeDir: '/home/u',
  dataDir: '/home/u/.local/share/berth',
  dockerSockets: ['/var/run/docker.sock', '/run/docker.sock'],
  platform: 'linux',
};
const segment = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,11}$/);
const segments = fc.array(segment, { minLength: 1, maxLength: 5 });

describe('resolveAttachableFolder (properties)', () => {
  const hostFacts = [facts];

  it('refuses a path with a NUL, a relative path or a sandbox path with a clear error, before touching the disk', () => {
    const bad = fc.oneof(
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => `/${a}\0${b}`),
      fc.string({ minLength: 1 }).filter((s) => !s.startsWith('/') && !s.includes('\0')),
      segments.map((s) => `/workspace/${s.join('/')}`),
    );
    fc.assert(
      fc.property(bad, (input) => {
        expect(() => resolveAttachableFolder(input, hostFacts)).toThrow(FolderRefused);
      }),
    );
  });

  it('for any string either returns an allowed real folder or refuses it, never another error', () => {
    const input = fc.oneof(
      fc.string(),
      fc.array(fc.constantFrom('etc', 'tmp', 'usr', 'home', 'u', '..', '.', 'proc', 'self', 'root', 'opt', 'var', 'x'), { maxLength: 5 }).map((p) => `/${p.join('/')}`),
    );
    fc.assert(
      fc.property(input, (s) => {
        let real: string;
        try {
          real = resolveAttachableFolder(s, hostFacts);
        } catch (error) {
          expect(error).toBeInstanceOf(FolderRefused);
          expect((error as FolderRefused).code).toBe('workspace_refused');
          return;
        }
        expect(path.isAbsolute(real)).toBe(true);
        expect(sensitivePathReason(real, facts)).toBeNull();
      }),
    );
  });
});

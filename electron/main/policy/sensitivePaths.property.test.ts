// Property-based tests (fast-check) of the deny-list and folder checks: random paths, not a
// hand-picked list, so a prefix slip (`/etc2` taken for `/etc`) or a hole under a refused
// folder shows up as a shrunk counterexample.
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isContainerPath, isSameOrInside, sensitivePathReason, type HostFacts } from './sensitivePaths.js';

const facts: HostFacts = {
  homeDir: '/home/u',
  dataDir: '/home/u/.local/share/berth',
  dockerSockets: ['/var/run/docker.sock', '/run/docker.sock'],
  extraSockets: ['/run/user/1000/ssh-agent.sock'],
  platform: 'linux',
};

/** Folder names as people give projects: never a dot folder, so never a credential store. */
const segment = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,11}$/);
const segments = fc.array(segment, { minLength: 1, maxLength: 5 });

/** Folders that are sensitive themselves (system, credentials, Berth's data, socket holders). */
const SENSITIVE = [
  '/etc', '/usr', '/proc', '/sys', '/dev', '/boot', '/var/run', '/run', '/var/lib/docker', '/var/log',
  '/home/u/.ssh', '/home/u/.aws', '/home/u/.gnupg', '/home/u/.kube', '/home/u/.docker', '/home/u/.config/gcloud',
  facts.dataDir,
];

function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let d = path.posix.dirname(p); ; d = path.posix.dirname(d)) {
    out.push(d);
    if (d === '/') return out;
  }
}

describe('sensitivePathReason (properties)', () => {
  it('refuses every folder at any depth inside a sensitive folder', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SENSITIVE), segments, (root, segs) => {
        expect(sensitivePathReason(path.posix.join(root, ...segs), facts)).toEqual(expect.any(String));
      }),
    );
  });

  it('refuses every folder that contains a sensitive folder, a Docker socket or the SSH agent', () => {
    const held = [...SENSITIVE, ...facts.dockerSockets, ...(facts.extraSockets ?? []), facts.homeDir];
    fc.assert(
      fc.property(fc.constantFrom(...held), (p) => {
        for (const a of ancestors(p)) expect(sensitivePathReason(a, facts), a).toEqual(expect.any(String));
      }),
    );
  });

  it('allows any project folder inside the home folder', () => {
    fc.assert(
      fc.property(segments, (segs) => {
        expect(sensitivePathReason(path.posix.join(facts.homeDir, ...segs), facts)).toBeNull();
      }),
    );
  });

  it('never mistakes a sibling that only shares a name prefix for the sensitive folder', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SENSITIVE), segment, (root, tail) => {
        // `/etc-x`, `~/.ssh-x`: beside the folder, not inside it.
        const sibling = `${root}-${tail}`;
        const reason = sensitivePathReason(sibling, facts);
        if (root.startsWith(`${facts.homeDir}/`)) expect(reason).toBeNull();
        else expect(reason ?? '').not.toContain(`${root} is a system folder`);
      }),
    );
  });
});

describe('isSameOrInside and isContainerPath (properties)', () => {
  const absolute = segments.map((s) => `/${s.join('/')}`);

  it('is reflexive, holds for every descendant, and never for a name-prefix sibling', () => {
    fc.assert(
      fc.property(absolute, segments, segment, (p, more, tail) => {
        expect(isSameOrInside(p, p)).toBe(true);
        expect(isSameOrInside(path.posix.join(p, ...more), p)).toBe(true);
        expect(isSameOrInside(`${p}${tail}`, p)).toBe(false);
        expect(isSameOrInside(p, path.posix.join(p, ...more))).toBe(false);
      }),
    );
  });

  it('takes a path for the sandbox exactly when it normalizes to /workspace or below', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('workspace', '..', '.', 'etc', 'a', ''), { maxLength: 6 }), (parts) => {
        const p = `/${parts.join('/')}`;
        const normal = path.posix.normalize(p);
        expect(isContainerPath(p)).toBe(normal === '/workspace' || normal.startsWith('/workspace/'));
      }),
    );
  });
});

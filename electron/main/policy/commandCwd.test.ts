import { describe, expect, it } from 'vitest';
import { forgetsRecordedCwd, resolveCommandCwd, type CwdInput, type MountPoint } from './commandCwd.js';

const HOME = '/home/berth';
const oneFolder: MountPoint[] = [{ source: '/home/u/app', target: '/workspace' }];
const twoFolders: MountPoint[] = [
  { source: '/home/u/api', target: '/workspace/api' },
  { source: '/home/u/web', target: '/workspace/web' },
];

function inContainer(partial: Partial<CwdInput>): string {
  return resolveCommandCwd({ backend: 'docker', recorded: null, mounts: oneFolder, home: HOME, ...partial }).cwd;
}

describe('resolveCommandCwd: docker backend', () => {
  it('starts in /workspace when one folder is attached and nothing is recorded', () => {
    expect(resolveCommandCwd({ backend: 'docker', recorded: null, mounts: oneFolder, home: HOME })).toEqual({
      cwd: '/workspace', fallback: '/workspace',
    });
  });

  it('starts in /workspace when several folders are attached', () => {
    expect(inContainer({ mounts: twoFolders })).toBe('/workspace');
  });

  it('starts in the sandbox home when no folder is attached', () => {
    expect(inContainer({ mounts: [] })).toBe(HOME);
  });

  it('continues in the recorded container cwd', () => {
    expect(inContainer({ recorded: { path: '/workspace/src', location: 'container' } })).toBe('/workspace/src');
    expect(inContainer({ recorded: { path: '/tmp', location: 'container' } })).toBe('/tmp');
  });

  it('never sends a recorded host path outside the attached folders into the container', () => {
    expect(inContainer({ recorded: { path: '/home/u/elsewhere', location: 'host' } })).toBe('/workspace');
    expect(inContainer({ mounts: [], recorded: { path: '/home/u/elsewhere', location: 'host' } })).toBe(HOME);
  });

  it('does not treat a sibling folder with a common prefix as inside the attached folder', () => {
    expect(inContainer({ recorded: { path: '/home/u/app2', location: 'host' } })).toBe('/workspace');
  });

  it('maps a recorded host path inside the attached folder to its /workspace equivalent', () => {
    expect(inContainer({ recorded: { path: '/home/u/app', location: 'host' } })).toBe('/workspace');
    expect(inContainer({ recorded: { path: '/home/u/app/src/lib', location: 'host' } })).toBe('/workspace/src/lib');
  });

  it('maps a recorded host path in the several-folders layout', () => {
    expect(inContainer({ mounts: twoFolders, recorded: { path: '/home/u/web/src', location: 'host' } })).toBe('/workspace/web/src');
    expect(inContainer({ mounts: twoFolders, recorded: { path: '/home/u/api', location: 'host' } })).toBe('/workspace/api');
  });

  it('maps to the most specific mount when folders are nested', () => {
    const nested: MountPoint[] = [
      { source: '/home/u/app', target: '/workspace/app' },
      { source: '/home/u/app/vendor', target: '/workspace/vendor' },
    ];
    expect(inContainer({ mounts: nested, recorded: { path: '/home/u/app/vendor/lib', location: 'host' } })).toBe('/workspace/vendor/lib');
  });

  it('lets an explicit absolute workdir win over the record', () => {
    expect(inContainer({ workdir: '/opt/tool', recorded: { path: '/workspace/src', location: 'container' } })).toBe('/opt/tool');
  });

  it('joins a relative workdir to the recorded cwd', () => {
    expect(inContainer({ workdir: 'lib', recorded: { path: '/workspace/src', location: 'container' } })).toBe('/workspace/src/lib');
    expect(inContainer({ workdir: '../docs', recorded: { path: '/workspace/src', location: 'container' } })).toBe('/workspace/docs');
    expect(inContainer({ workdir: 'lib' })).toBe('/workspace/lib');
  });

  it('maps an explicit workdir that is a host path inside an attached folder', () => {
    expect(inContainer({ workdir: '/home/u/app/test', recorded: { path: '/tmp', location: 'container' } })).toBe('/workspace/test');
    expect(inContainer({ mounts: twoFolders, workdir: '/home/u/api/src' })).toBe('/workspace/api/src');
  });

  it('falls back to the default start folder, never to the record', () => {
    const r = resolveCommandCwd({ backend: 'docker', recorded: { path: '/workspace/gone', location: 'container' }, mounts: twoFolders, home: HOME });
    expect(r.fallback).toBe('/workspace');
  });
});

describe('resolveCommandCwd: local backend', () => {
  const base = { backend: 'local' as const, mounts: [], home: '/home/u' };

  it('continues in the recorded host path as it is', () => {
    expect(resolveCommandCwd({ ...base, recorded: { path: '/home/u/app/src', location: 'host' }, localDefault: '/home/u/app' }).cwd).toBe(
      '/home/u/app/src',
    );
  });

  it('ignores a container record and starts in the first attached folder, else home', () => {
    expect(resolveCommandCwd({ ...base, recorded: { path: '/workspace/src', location: 'container' }, localDefault: '/home/u/app' })).toEqual({
      cwd: '/home/u/app', fallback: '/home/u/app',
    });
    expect(resolveCommandCwd({ ...base, recorded: { path: '/workspace/src', location: 'container' }, localDefault: null }).cwd).toBe('/home/u');
  });

  it('never maps host paths to /workspace', () => {
    const mounts = [{ source: '/home/u/app', target: '/workspace' }];
    expect(resolveCommandCwd({ ...base, mounts, recorded: { path: '/home/u/app/x', location: 'host' } }).cwd).toBe('/home/u/app/x');
  });

  it('joins a relative workdir to the recorded host path and keeps an absolute one', () => {
    const recorded = { path: '/home/u/app', location: 'host' as const };
    expect(resolveCommandCwd({ ...base, recorded, workdir: 'src' }).cwd).toBe('/home/u/app/src');
    expect(resolveCommandCwd({ ...base, recorded, workdir: '/srv/other' }).cwd).toBe('/srv/other');
  });
});

describe('forgetsRecordedCwd: after the chat’s folders changed', () => {
  const at = (p: string) => ({ path: p, location: 'container' as const });
  it('forgets the home once a folder is where commands start', () => {
    expect(forgetsRecordedCwd(at(HOME), '/workspace', HOME)).toBe(true);
  });
  it('forgets /workspace once no folder is left', () => {
    expect(forgetsRecordedCwd(at('/workspace'), HOME, HOME)).toBe(true);
  });
  it('keeps a default that is still the default, and a directory the agent chose', () => {
    expect(forgetsRecordedCwd(at('/workspace'), '/workspace', HOME)).toBe(false);
    expect(forgetsRecordedCwd(at('/workspace/src'), HOME, HOME)).toBe(false);
    expect(forgetsRecordedCwd(at('/tmp'), '/workspace', HOME)).toBe(false);
  });
  it('never touches a path recorded on the host (local backend)', () => {
    expect(forgetsRecordedCwd({ path: HOME, location: 'host' }, '/workspace', HOME)).toBe(false);
  });
});

import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dockerfileBases, environmentKey, lifecycleScript, namesRoot, NEVER_HONOURED, planEnvironment, substitute, userInPasswd } from './devcontainer.js';

const ctx = { source: '.devcontainer/devcontainer.json', folderName: 'repo', containerFolder: '/workspace' };

function plan(raw: unknown) {
  const r = planEnvironment(raw, ctx);
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.plan;
}

function problems(raw: unknown): string[] {
  const r = planEnvironment(raw, ctx);
  if (r.ok) throw new Error('expected a refusal');
  return r.problems;
}

describe('planEnvironment', () => {
  it('reads image, env, user, commands, ports and the workspace folder', () => {
    const p = plan({
      image: 'node:22',
      containerEnv: { A: '1', B: '${containerWorkspaceFolder}/x' },
      remoteEnv: { C: '${containerEnv:A}-2', D: '${localEnv:HOME}' },
      remoteUser: 'node',
      postCreateCommand: 'npm ci',
      postStartCommand: ['echo', 'hi'],
      forwardPorts: [3000, '8080', 3000],
      portsAttributes: { '3000': { label: 'Web app' } },
      workspaceFolder: '/workspaces/${localWorkspaceFolderBasename}',
    });
    expect(p.image).toBe('node:22');
    expect(p.containerEnv).toEqual({ A: '1', B: '/workspace/x' });
    // Nothing of this computer's environment reaches the sandbox.
    expect(p.remoteEnv).toEqual({ C: '1-2', D: '' });
    expect(p.user).toBe('node');
    expect(p.commands.postCreateCommand).toBe('npm ci');
    expect(p.forwardPorts).toEqual([{ port: 3000, label: 'Web app' }, { port: 8080, label: null }]);
    expect(p.workspaceFolder).toBe('/workspaces/repo');
  });

  it('resolves build paths against the devcontainer.json folder and keeps them inside the attached folder', () => {
    const p = plan({ build: { dockerfile: 'Dockerfile', context: '..', args: { V: '1' }, target: 'dev' } });
    expect(p.build).toEqual({ dockerfile: '.devcontainer/Dockerfile', context: '.', args: { V: '1' }, target: 'dev' });
    expect(problems({ build: { dockerfile: 'Dockerfile', context: '../..' } })[0]).toMatch(/leaves the attached folder/);
    expect(problems({ build: { dockerfile: '/etc/Dockerfile' } })[0]).toMatch(/leaves the attached folder/);
  });

  it('names every never-honoured key as ignored, with its reason', () => {
    const raw: Record<string, unknown> = { image: 'x' };
    for (const key of Object.keys(NEVER_HONOURED)) raw[key] = key === 'dockerComposeFile' ? 'c.yml' : true;
    const p = plan(raw);
    expect(p.ignored.map((i) => i.key).sort()).toEqual(Object.keys(NEVER_HONOURED).sort());
    expect(p.ignored.every((i) => i.reason.length > 10)).toBe(true);
  });

  it('refuses root, features and files with nothing to start from', () => {
    for (const user of ['root', '0', '1000:0', 'dev:root']) {
      expect(problems({ image: 'x', remoteUser: user })[0]).toMatch(/never runs a sandbox as root/);
    }
    expect(problems({ image: 'x', features: { 'ghcr.io/devcontainers/features/node:1': {} } })[0]).toMatch(/does not install Dev Container Features/);
    expect(problems({})[0]).toMatch(/neither "image" nor "build.dockerfile"/);
    expect(problems({ dockerComposeFile: 'x.yml', service: 'app' })[0]).toMatch(/Docker Compose/);
  });

  it('never names root for a non-root user (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z_][a-z0-9_-]{0,15}$/), fc.integer({ min: 1, max: 65534 }), (name, id) => {
        fc.pre(name !== 'root');
        expect(namesRoot(name)).toBe(false);
        expect(namesRoot(`${id}:${id}`)).toBe(false);
        expect(namesRoot(`${id}:0`)).toBe(true);
      }),
    );
  });

  it('substitutes only the variables it can answer', () => {
    expect(substitute('${localEnv:SECRET}${unknown}', ctx)).toBe('${unknown}');
  });
});

describe('lifecycleScript', () => {
  const sh = (script: string) => {
    try {
      return { code: 0, out: execFileSync('/bin/sh', ['-c', script], { encoding: 'utf8' }) };
    } catch (error) {
      const e = error as { status: number; stdout: string };
      return { code: e.status, out: e.stdout };
    }
  };

  it('runs a string through a shell and an array without one', () => {
    expect(sh(lifecycleScript('echo a && echo "$((1+1))"')).out).toBe('a\n2\n');
    expect(sh(lifecycleScript(['echo', '$HOME', "it's"])).out).toBe("$HOME it's\n");
    expect(sh(lifecycleScript('exit 3')).code).toBe(3);
  });

  it('runs an object’s commands in parallel and fails when any fails', () => {
    const ok = sh(lifecycleScript({ a: 'echo one', b: ['echo', 'two'] }));
    expect(ok.code).toBe(0);
    expect(ok.out.split('\n').sort()).toEqual(['', '[a] one', '[b] two']);
    expect(sh(lifecycleScript({ a: 'true', b: 'false' })).code).toBe(1);
  });

  it('passes any argument through unchanged (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }).filter((s) => !s.includes('\0') && !s.startsWith('-')), { minLength: 1, maxLength: 4 }), (args) => {
        expect(sh(lifecycleScript(['printf', '%s\\n', ...args])).out).toBe(args.map((a) => `${a}\n`).join(''));
      }),
      { numRuns: 30 },
    );
  });
});

describe('dockerfileBases and environmentKey', () => {
  it('lists the images a Dockerfile starts from', () => {
    const text = 'ARG BASE=berth-test:busybox\nFROM ${BASE} AS one\nRUN x \\\n  y\nFROM one\nFROM --platform=linux/amd64 debian:12 as two\nFROM scratch';
    expect(dockerfileBases(text)).toEqual(['berth-test:busybox', 'debian:12']);
    expect(dockerfileBases(text, { BASE: 'other:1' })).toEqual(['other:1', 'debian:12']);
  });

  it('changes with each part it is made from', () => {
    const base = { config: '{}', contextDigest: 'c', baseImageIds: ['sha256:a'], user: '1000:1000' };
    const k = environmentKey(base);
    expect(environmentKey({ ...base })).toBe(k);
    expect(environmentKey({ ...base, config: '{ }' })).not.toBe(k);
    expect(environmentKey({ ...base, contextDigest: 'd' })).not.toBe(k);
    expect(environmentKey({ ...base, baseImageIds: ['sha256:b'] })).not.toBe(k);
    expect(environmentKey({ ...base, user: '1001:1001' })).not.toBe(k);
  });
});

describe('userInPasswd', () => {
  const passwd = 'root:x:0:0:root:/root:/bin/sh\ndev:x:1000:1000::/home/dev:/bin/sh\nsneaky:x:0:1000::/:/bin/sh\n';
  it('finds a user by name or uid, and says when it is root', () => {
    expect(userInPasswd(passwd, 'dev')).toEqual({ name: 'dev', uid: 1000, gid: 1000 });
    expect(userInPasswd(passwd, '1000')).toEqual({ name: 'dev', uid: 1000, gid: 1000 });
    // A name that is not root can still be uid 0 in the image: the caller refuses it by its uid.
    expect(userInPasswd(passwd, 'sneaky')?.uid).toBe(0);
    expect(userInPasswd(passwd, 'nobody-here')).toBeNull();
    expect(userInPasswd(null, '1234:5678')).toEqual({ name: '1234', uid: 1234, gid: 5678 });
  });
});

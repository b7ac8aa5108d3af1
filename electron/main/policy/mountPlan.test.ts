import { describe, expect, it } from 'vitest';
import { planMounts, staticMountsProblem, staticTargetProblem, usesSlot, visibleFolders, workspaceTargets, type AttachmentInput, type MountPlanInput } from './mountPlan.js';

const session = (hostPath: string, readOnly = false): AttachmentInput => ({ hostPath, readOnly, provenance: 'session' });
const processCwd = (hostPath: string): AttachmentInput => ({ hostPath, readOnly: false, provenance: 'process' });

function plan(partial: Partial<MountPlanInput>): ReturnType<typeof planMounts> {
  return planMounts({ backend: 'docker', mountWorkspace: true, attachments: [], staticMounts: [], ...partial });
}

describe('planMounts: which folders a chat container sees', () => {
  it('mounts one attached folder at /workspace', () => {
    expect(plan({ attachments: [session('/home/u/app')] })).toEqual([
      { source: '/home/u/app', target: '/workspace', readOnly: false, origin: 'chat' },
    ]);
  });

  it("never mounts a 'process' attachment such as the app's own cwd", () => {
    expect(plan({ attachments: [processCwd('/home/u/berth-checkout')] })).toEqual([]);
    const mixed = plan({ attachments: [processCwd('/home/u/berth-checkout'), session('/home/u/app')] });
    expect(mixed.map((m) => m.source)).toEqual(['/home/u/app']);
    // The lone session folder is /workspace itself: the process folder does not count towards "several".
    expect(mixed[0]?.target).toBe('/workspace');
  });

  it('mounts several folders side by side as /workspace/<name>, in attach order', () => {
    const mounts = plan({ attachments: [session('/home/u/api'), session('/home/u/web', true)] });
    expect(mounts).toEqual([
      { source: '/home/u/api', target: '/workspace/api', readOnly: false, origin: 'chat' },
      { source: '/home/u/web', target: '/workspace/web', readOnly: true, origin: 'chat' },
    ]);
  });

  it('gives two folders with the same name distinct targets', () => {
    const mounts = plan({ attachments: [session('/a/app'), session('/b/app'), session('/c/app')] });
    const targets = mounts.map((m) => m.target);
    expect(new Set(targets).size).toBe(3);
    expect(targets[0]).toBe('/workspace/app');
    for (const t of targets) expect(t).toMatch(/^\/workspace\/[^/]+$/);
  });

  it('keeps targets distinct even when a folder is literally named like a de-duplicated one', () => {
    const targets = workspaceTargets(['/x/app-2', '/a/app', '/b/app']);
    expect(new Set(targets).size).toBe(3);
  });

  it('keeps a folder read-only when it was attached read-only', () => {
    expect(plan({ attachments: [session('/home/u/docs', true)] })[0]?.readOnly).toBe(true);
  });

  it('mounts nothing at all when the profile does not mount the workspace', () => {
    expect(
      plan({
        mountWorkspace: false,
        attachments: [session('/home/u/app')],
        staticMounts: [{ source: '/srv/data', target: '/data', readOnly: true }],
      }),
    ).toEqual([]);
  });

  it('mounts nothing at all for the local backend', () => {
    expect(
      plan({
        backend: 'local',
        attachments: [session('/home/u/app')],
        staticMounts: [{ source: '/srv/data', target: '/data', readOnly: true }],
      }),
    ).toEqual([]);
  });

  it("replaces a profile mount at the chat folder's target instead of adding a second source", () => {
    const mounts = plan({
      attachments: [session('/home/u/app')],
      staticMounts: [
        { source: '/srv/default-workspace', target: '/workspace', readOnly: true },
        { source: '/srv/data', target: '/data', readOnly: true },
      ],
    });
    expect(mounts.filter((m) => m.target === '/workspace')).toEqual([
      { source: '/home/u/app', target: '/workspace', readOnly: false, origin: 'chat' },
    ]);
    expect(mounts).toContainEqual({ source: '/srv/data', target: '/data', readOnly: true, origin: 'profile' });
    expect(mounts).toHaveLength(2);
  });

  it('replaces a profile mount whose target is written differently but means the same path', () => {
    const mounts = plan({
      attachments: [session('/home/u/app')],
      staticMounts: [{ source: '/srv/other', target: '/workspace/../workspace', readOnly: true }],
    });
    expect(mounts.map((m) => m.source)).toEqual(['/home/u/app']);
  });

  it('replaces a profile mount whose target has a trailing slash', () => {
    const mounts = plan({
      attachments: [session('/home/u/app')],
      staticMounts: [{ source: '/srv/other', target: '/workspace/', readOnly: true }],
    });
    expect(mounts.map((m) => m.source)).toEqual(['/home/u/app']);
  });

  it('keeps one source per target among the profile mounts themselves', () => {
    const mounts = plan({
      staticMounts: [
        { source: '/srv/one', target: '/data', readOnly: true },
        { source: '/srv/two', target: '/data', readOnly: false },
      ],
    });
    expect(mounts).toEqual([{ source: '/srv/one', target: '/data', readOnly: true, origin: 'profile' }]);
  });

  it('keeps profile mounts when the chat has no folders', () => {
    expect(plan({ staticMounts: [{ source: '/srv/data', target: '/data', readOnly: false }] })).toEqual([
      { source: '/srv/data', target: '/data', readOnly: false, origin: 'profile' },
    ]);
  });

  it('never mounts two sources at one target, whatever the inputs', () => {
    const mounts = plan({
      attachments: [session('/a/app'), session('/b/app'), processCwd('/c/app')],
      staticMounts: [
        { source: '/srv/x', target: '/workspace/app', readOnly: true },
        { source: '/srv/y', target: '/workspace/app-2', readOnly: true },
        { source: '/srv/z', target: '/opt/z', readOnly: true },
      ],
    });
    const targets = mounts.map((m) => m.target);
    expect(new Set(targets).size).toBe(targets.length);
    expect(mounts.filter((m) => m.origin === 'chat').map((m) => m.source)).toEqual(['/a/app', '/b/app']);
    expect(mounts.find((m) => m.target === '/opt/z')?.source).toBe('/srv/z');
  });
});

describe('planMounts: profile mounts never nest with chat folders or each other', () => {
  it('drops a profile mount at /workspace when the chat has several folders under it', () => {
    const mounts = plan({
      attachments: [session('/home/u/a'), session('/home/u/b')],
      staticMounts: [{ source: '/srv/ws', target: '/workspace', readOnly: true }],
    });
    expect(mounts.map((m) => m.target)).toEqual(['/workspace/a', '/workspace/b']);
    expect(mounts.every((m) => m.origin === 'chat')).toBe(true);
  });

  it("drops a profile mount inside the chat's lone folder at /workspace", () => {
    const mounts = plan({
      attachments: [session('/home/u/app')],
      staticMounts: [{ source: '/srv/extra', target: '/workspace/extra', readOnly: true }],
    });
    expect(mounts).toEqual([{ source: '/home/u/app', target: '/workspace', readOnly: false, origin: 'chat' }]);
  });

  it('keeps a profile mount under /workspace while the chat has no folder there', () => {
    expect(plan({ staticMounts: [{ source: '/srv/extra', target: '/workspace/extra', readOnly: true }] })).toHaveLength(1);
  });

  it('drops a later profile mount that nests with an earlier one, either way round', () => {
    const mounts = plan({
      staticMounts: [
        { source: '/srv/data', target: '/data', readOnly: true },
        { source: '/srv/inner', target: '/data/x', readOnly: true },
        { source: '/srv/outer', target: '/opt', readOnly: true },
        { source: '/srv/deeper', target: '/opt/tools/', readOnly: true },
        { source: '/srv/ref', target: '/reference', readOnly: true },
      ],
    });
    expect(mounts.map((m) => m.target)).toEqual(['/data', '/opt', '/reference']);
  });

  it('drops a profile mount stored at a path the sandbox uses', () => {
    const mounts = plan({
      staticMounts: [
        { source: '/srv/h', target: '/home', readOnly: true },
        { source: '/srv/r', target: '/', readOnly: true },
        { source: '/srv/d', target: '/data', readOnly: true },
      ],
    });
    expect(mounts.map((m) => m.target)).toEqual(['/data']);
  });
});

describe('staticTargetProblem', () => {
  it.each(['/data', '/opt/tools', '/workspace', '/srv', '/home/other', '/var/lib/x', '/data/'])('accepts %s', (target) => {
    expect(staticTargetProblem(target)).toBeNull();
  });

  it.each(['/', '//', '/proc', '/etc/x', '/home/berth', '/home/berth/', '/home/berth/.config', '/tmp/', '/var/run/x'])('refuses the reserved path %s', (target) => {
    expect(staticTargetProblem(target)).toMatch(/reserved for the sandbox itself/);
  });

  it.each([
    ['/home', '/home/berth'],
    ['/home/', '/home/berth'],
    ['/var', '/var/run'],
    ['/var/', '/var/run'],
  ])('refuses %s, which holds %s', (target, reserved) => {
    expect(staticTargetProblem(target)).toBe(`the container path "${target}" holds ${reserved}, which the sandbox itself uses.`);
  });

  it('refuses a relative path', () => {
    expect(staticTargetProblem('data')).toMatch(/must start with \//);
  });
});

describe('staticMountsProblem', () => {
  it('accepts separate mounts, /workspace itself included', () => {
    expect(staticMountsProblem([{ target: '/data' }, { target: '/reference' }, { target: '/workspace' }, { target: '/database' }])).toBeNull();
    expect(staticMountsProblem([])).toBeNull();
  });

  it('refuses two mounts at one path, however written', () => {
    expect(staticMountsProblem([{ target: '/data' }, { target: '/data/' }])).toMatch(/same container path "\/data"/);
  });

  it.each([
    ['/data', '/data/x'],
    ['/data/x', '/data'],
    ['/opt', '/opt/a/b/'],
  ])('refuses %s and %s, one inside the other', (a, b) => {
    expect(staticMountsProblem([{ target: a }, { target: b }])).toMatch(/one inside the other/);
  });

  it("refuses a mount inside /workspace, where a chat's folder goes", () => {
    expect(staticMountsProblem([{ target: '/workspace/x' }])).toMatch(/would land inside a chat's folder at \/workspace/);
    expect(staticMountsProblem([{ target: '/workspace/../workspace/x/' }])).toMatch(/inside a chat's folder/);
  });
});

describe('planMounts: a warm sandbox’s slot folder', () => {
  const SLOT = '/data/profiles/p/slots/c';
  const copy = (hostPath: string, workDir: string, objects: { source: string; target: string } | null = null): AttachmentInput =>
    ({ hostPath, readOnly: false, provenance: 'session', review: { workDir, objects } });
  const uses = (partial: Partial<MountPlanInput>) => usesSlot({ backend: 'docker', mountWorkspace: true, attachments: [], staticMounts: [], slot: SLOT, ...partial });

  it('mounts the empty slot at /workspace before any folder is attached, and nothing else of the chat', () => {
    expect(plan({ slot: SLOT })).toEqual([{ source: SLOT, target: '/workspace', readOnly: false, origin: 'slot' }]);
    expect(visibleFolders(plan({ slot: SLOT }))).toEqual([]);
  });

  it('mounts the copy that fills the slot exactly as the empty slot was mounted: the container stays the same', () => {
    const filled = plan({ slot: SLOT, attachments: [copy('/home/u/notes', SLOT)] });
    expect(filled).toEqual([{ source: SLOT, target: '/workspace', readOnly: false, origin: 'review' }]);
    const shape = (m: ReturnType<typeof plan>) => m.map((x) => [x.source, x.target, x.readOnly]);
    expect(shape(filled)).toEqual(shape(plan({ slot: SLOT })));
    expect(uses({ attachments: [copy('/home/u/notes', SLOT)] })).toBe(true);
  });

  it('keeps several copies in the slot, each in the folder named as the container path it would have without the slot', () => {
    const several = [copy('/home/u/notes', `${SLOT}/notes`), copy('/srv/notes', `${SLOT}/notes-2`), copy('/home/u/site', `${SLOT}/site`)];
    expect(plan({ slot: SLOT, attachments: several })).toEqual([{ source: SLOT, target: '/workspace', readOnly: false, origin: 'review' }]);
    expect(uses({ attachments: several })).toBe(true);
    // Not where the names say (the order changed, a copy outside the slot): a container made with them.
    expect(uses({ attachments: [several[1]!, several[0]!, several[2]!] })).toBe(false);
    expect(uses({ attachments: [several[0]!, copy('/home/u/site', '/data/review/abc/work')] })).toBe(false);
    expect(uses({ attachments: [copy('/home/u/notes', SLOT), copy('/home/u/site', `${SLOT}/site`)] })).toBe(false);
    // Left, each copy is mounted where it is, at the same container path.
    expect(plan({ slot: SLOT, attachments: [...several, session('/home/u/app')] }).map((m) => [m.source, m.target])).toEqual([
      [`${SLOT}/notes`, '/workspace/notes'], [`${SLOT}/notes-2`, '/workspace/notes-2'], [`${SLOT}/site`, '/workspace/site'], ['/home/u/app', '/workspace/app'],
    ]);
  });

  it('leaves the slot when a folder must be mounted itself: a second folder, read-write, read-only, a git copy', () => {
    const two = plan({ slot: SLOT, attachments: [copy('/home/u/notes', SLOT), session('/home/u/app')] });
    expect(two.map((m) => [m.source, m.target, m.origin])).toEqual([[SLOT, '/workspace/notes', 'review'], ['/home/u/app', '/workspace/app', 'chat']]);
    expect(uses({ attachments: [copy('/home/u/notes', SLOT), session('/home/u/app')] })).toBe(false);
    expect(uses({ attachments: [session('/home/u/app')] })).toBe(false);
    expect(uses({ attachments: [copy('/home/u/repo', SLOT, { source: '/home/u/repo/.git/objects', target: '/.berth-git/x' })] })).toBe(false);
    expect(uses({ attachments: [copy('/home/u/a', '/data/review/abc/work')] })).toBe(false);
  });

  it('is not used when a profile mount claims /workspace (the slot would hide it), nor without mounted folders', () => {
    expect(plan({ slot: SLOT, staticMounts: [{ source: '/srv/ws', target: '/workspace', readOnly: true }] })).toEqual([
      { source: '/srv/ws', target: '/workspace', readOnly: true, origin: 'profile' },
    ]);
    expect(plan({ slot: SLOT, mountWorkspace: false })).toEqual([]);
    // A profile mount elsewhere stays beside the slot.
    expect(plan({ slot: SLOT, staticMounts: [{ source: '/srv/data', target: '/data', readOnly: true }] }).map((m) => m.origin)).toEqual(['slot', 'profile']);
  });
});

import { describe, expect, it } from 'vitest';
import { planMounts, workspaceTargets, type AttachmentInput, type MountPlanInput } from './mountPlan.js';

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

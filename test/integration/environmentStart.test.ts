/**
 * A project environment's postStartCommand runs each time the chat's container starts (the
 * devcontainer spec: "A command to run each time the container is successfully started",
 * containers.dev/implementors/json_reference), not only when the environment is first used:
 * after the sandbox stopped when idle, the command that starts it again runs it first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { removesItsEnvironmentImages } from '../support/environmentImages.js';
import { Harness, uniqueName } from '../support/harness.js';
import { ManualClock } from '../support/manualClock.js';
import { waitFor } from '../support/waitFor.js';
import { docker } from '../support/docker.js';

const h = new Harness();
removesItsEnvironmentImages();
const clock = new ManualClock();
let core: BerthCore;
const marker = uniqueName('envstart');

beforeAll(async () => {
  core = h.core({ clock });
}, 60_000);

afterAll(async () => {
  await h.cleanup();
}, 120_000);

const running = async (id: string) => (await docker('inspect', '-f', '{{.State.Running}}', id)).trim() === 'true';

describe('postStartCommand', () => {
  it('runs again when the idle-stopped sandbox starts again, before the command that started it; a command in the running one starts nothing', async () => {
    const profile = (await h.profile(core, { egress: 'none', retention: { idleStopMinutes: 30, onQuit: 'stop' } })).name;
    const folder = h.workspace('repo', {
      '.devcontainer/devcontainer.json': `{ "name": "${marker}", "image": "berth-test:busybox",
        "postCreateCommand": "echo created >> $HOME/lifecycle",
        "postStartCommand": "echo started >> $HOME/lifecycle" }`,
    });
    const chatId = (await core.chats.create({ profile })).id;
    await core.workspace.attach({ chatId, path: folder });
    expect((await core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' })).state).toBe('ready');
    const lines = async () => (await core.sandbox.exec({ chatId, command: 'cat $HOME/lifecycle' })).output;
    expect(await lines()).toBe('created\nstarted\n');

    // Stopped the way idle stop stops it: nobody uses it for the profile's idle period.
    const id = (await core.sandbox.status({ chatId })).containerId as string;
    clock.advance(31 * 60_000);
    await waitFor(async () => !(await running(id)), 'the idle stop');
    expect((await core.sandbox.status({ chatId })).state).toBe('stopped');

    // The next command starts it again: postStartCommand has run before it.
    expect(await lines()).toBe('created\nstarted\nstarted\n');
    expect((await core.sandbox.status({ chatId })).containerId).toBe(id);
    // A command in the running container starts nothing.
    expect(await lines()).toBe('created\nstarted\nstarted\n');
  }, 240_000);

  it('that fails when the sandbox starts again is told to the command that started it, once, and the sandbox still runs it', async () => {
    const profile = (await h.profile(core, { egress: 'none', retention: { idleStopMinutes: 30, onQuit: 'stop' } })).name;
    const folder = h.workspace('failing', {
      '.devcontainer/devcontainer.json': `{ "name": "${marker}-fails", "image": "berth-test:busybox",
        "postStartCommand": "if [ -e $HOME/started-once ]; then echo no-such-server >&2; exit 7; fi; touch $HOME/started-once" }`,
    });
    const chatId = (await core.chats.create({ profile })).id;
    await core.workspace.attach({ chatId, path: folder });
    expect((await core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' })).state).toBe('ready');

    const id = (await core.sandbox.status({ chatId })).containerId as string;
    clock.advance(31 * 60_000);
    await waitFor(async () => !(await running(id)), 'the idle stop');

    const first = await core.sandbox.exec({ chatId, command: 'echo after-start' });
    expect(first.output).toBe('after-start\n');
    const told = first.notices.filter((n) => n.includes('postStartCommand'));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('exit code 7');
    expect(told[0]).toContain('no-such-server');
    // Told once: the next command in the running sandbox hears nothing of it.
    const next = await core.sandbox.exec({ chatId, command: 'true' });
    expect(next.notices.join(' ')).not.toContain('postStartCommand');
  }, 240_000);
});

/**
 * Ports on an ssh:// engine (an sshd on 127.0.0.1 in front of this machine's engine): the
 * forward runs through the Engine API over the SSH connection, so the sandbox's server opens
 * on this computer's 127.0.0.1 with nothing published on the engine's side.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspect } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { enter, get, httpServerCommand } from '../support/portServers.js';
import { NET_IMAGE } from '../support/pretendInternet.js';
import { TestSshd, sshdMissing } from '../support/sshd.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
const missing = sshdMissing();
if (missing) console.warn(`portsRemote.test.ts: skipping the ssh:// port forward test: ${missing}`);
const sshd = new TestSshd();

beforeAll(async () => {
  if (!missing) await sshd.start();
});
afterAll(async () => {
  await h.cleanup();
  await sshd.dispose();
}, 240_000);

describe.skipIf(missing !== null)('a port forward on an ssh:// engine', () => {
  it('opens the sealed sandbox’s http.server on this computer, with no port published there', async () => {
    const core = h.core({ knownHostsFiles: [sshd.knownHostsFile] });
    const profile = await h.profile(core, { image: NET_IMAGE, egress: 'none', engine: { kind: 'ssh', url: sshd.url, identityFile: sshd.identityFile } });
    const chat = await core.chats.create({ profile: profile.name });
    expect((await core.sandbox.exec({ chatId: chat.id, command: httpServerCommand(8000, 'over-ssh.txt') })).exitCode).toBe(0);
    await waitFor(async () => (await core.ports.list({ chatId: chat.id })).ports.some((p) => p.port === 8000), 'port 8000 listening over ssh');
    const status = await core.sandbox.status({ chatId: chat.id });
    expect(status.engine).toMatchObject({ kind: 'ssh', remote: true });

    const forward = await core.ports.open({ chatId: chat.id, port: 8000 });
    const { cookie } = await enter(forward.url);
    const listing = await get(`http://127.0.0.1:${forward.hostPort}/`, { cookie });
    expect(listing.status).toBe(200);
    expect(listing.body).toContain('over-ssh.txt');

    const seen = await inspect<{ HostConfig: { PortBindings: Record<string, unknown> | null }; NetworkSettings: { Ports: Record<string, unknown> | null } }>(status.containerId as string);
    expect(Object.keys(seen.HostConfig.PortBindings ?? {})).toEqual([]);
    await core.chats.delete({ chatId: chat.id });
  });
});

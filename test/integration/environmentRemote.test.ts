/**
 * Project environments on an ssh:// engine (an sshd on 127.0.0.1 in front of this machine's
 * engine): the Dockerfile is built on that engine through the Engine API over the SSH
 * connection, the chat's create-time commands run in its sandbox there (its folder a copy on that
 * engine), and the next chat on the folder starts from the prepared image without building.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { engineApi, removesItsEnvironmentImages } from '../support/environmentImages.js';
import { Harness, uniqueName } from '../support/harness.js';
import { TestSshd, sshdMissing } from '../support/sshd.js';

const h = new Harness();
removesItsEnvironmentImages();
const missing = sshdMissing();
if (missing) console.warn(`environmentRemote.test.ts: skipping the ssh:// environment tests: ${missing}`);
const sshd = new TestSshd();
const marker = uniqueName('envssh');

beforeAll(async () => {
  if (!missing) await sshd.start();
}, 60_000);
afterAll(async () => {
  await h.cleanup();
  await sshd.dispose();
}, 240_000);

const imageId = (ref: string) => engineApi.getImage(ref).inspect().then((i) => i.Id, () => null);

describe.skipIf(missing !== null)('a devcontainer.json on an ssh:// engine', () => {
  it('is built and prepared there, and the next chat on the folder starts from the prepared image without building', async () => {
    const core: BerthCore = h.core({ knownHostsFiles: [sshd.knownHostsFile] });
    const profile = (await h.profile(core, { egress: 'none', engine: { kind: 'ssh', url: sshd.url, identityFile: sshd.identityFile } })).name;
    const folder = h.workspace('repo', {
      '.devcontainer/devcontainer.json': `{ "name": "${marker}", "build": { "dockerfile": "Dockerfile" },
        "containerEnv": { "PATH": "/opt/tool:/usr/local/bin:/usr/bin:/bin" }, "postCreateCommand": "echo made > /opt/tool/made" }`,
      '.devcontainer/Dockerfile': [
        'FROM berth-test:busybox',
        `RUN echo ${marker}`,
        "RUN mkdir -p /opt/tool && chown 1000:1000 /opt/tool && printf '#!/bin/sh\\necho toolchain-ok\\n' > /opt/tool/berth-tool && chmod 755 /opt/tool/berth-tool",
      ].join('\n'),
    });
    const chatOn = async () => {
      const chatId = (await core.chats.create({ profile })).id;
      await core.workspace.attach({ chatId, path: folder });
      return chatId;
    };

    const first = await chatOn();
    const built = await core.environment.use({ chatId: first, folder, config: '.devcontainer/devcontainer.json' });
    expect(built).toMatchObject({ state: 'ready', reused: false });
    expect((await core.sandbox.status({ chatId: first })).engine).toMatchObject({ kind: 'ssh', remote: true });
    expect((await core.sandbox.exec({ chatId: first, command: 'berth-tool; cat /opt/tool/made' })).output).toBe('toolchain-ok\nmade\n');
    const preparedId = await imageId(built.image ?? '');
    expect(preparedId).not.toBeNull();

    const second = await chatOn();
    const reused = await core.environment.use({ chatId: second, folder, config: '.devcontainer/devcontainer.json' });
    expect(reused).toMatchObject({ state: 'ready', reused: true, image: built.image });
    // Nothing was built or saved again: the prepared image is the same one.
    expect(await imageId(built.image ?? '')).toBe(preparedId);
    expect((await core.sandbox.exec({ chatId: second, command: 'berth-tool; cat /opt/tool/made' })).output).toBe('toolchain-ok\nmade\n');
    expect((await core.sandbox.status({ chatId: second })).engine).toMatchObject({ kind: 'ssh', remote: true });
  }, 300_000);
});

/**
 * Environments bench: `@devcontainers/cli` (0.89.0, through npx) against Berth on the same
 * devcontainer.json (a Dockerfile FROM the local busybox test image, a non-root remoteUser,
 * containerEnv, a postCreateCommand) and the same engine, in one run:
 *   - first preparation: the CLI's first `devcontainer up` against Berth's first
 *     environment.use (build, create-time commands, the prepared image); target ≤ 1.2×;
 *   - a second chat on the same folder: the CLI's `up --remove-existing-container` with a warm
 *     build cache against Berth starting from the prepared image; target ≤ 0.1×. The profile
 *     keeps one warm sandbox (warmPool: 1), which is made from the prepared image once the first
 *     chat has taken it, so the second chat takes a container made already (measured after the
 *     pool is ready, as a user's next chat minutes later finds it).
 * Each side builds its own copy (one first RUN line differs), so neither reuses the other's
 * layers. Prints both ratios, the commands and the images' sizes; removes everything it made.
 *
 *   npm run bench:env
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCore } from '../electron/main/core.js';
import { docker, removeInstanceContainers } from '../test/support/docker.js';
import { chownTree } from '../test/support/harness.js';

const run = promisify(execFile);
const id = Math.random().toString(16).slice(2, 8);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-env-'));
const CLI = ['-y', '@devcontainers/cli@0.89.0'];
const LABEL = `berth.bench.env=${id}`;

function project(name: string, first: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, '.devcontainer'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.devcontainer', 'devcontainer.json'), JSON.stringify({
    build: { dockerfile: 'Dockerfile' }, remoteUser: 'dev', containerEnv: { GREETING: 'hello' },
    postCreateCommand: 'echo made > /opt/tool/marker', forwardPorts: [3000],
  }, null, 2));
  fs.writeFileSync(path.join(dir, '.devcontainer', 'Dockerfile'), [
    'FROM berth-test:busybox',
    `RUN echo ${first}`,
    "RUN sed -i 's/^sandbox:/dev:/' /etc/passwd && mkdir -p /opt/tool && chown 1000:1000 /opt/tool",
    "RUN printf '#!/bin/sh\\necho toolchain-ok\\n' > /opt/tool/berth-tool && chmod 755 /opt/tool/berth-tool",
  ].join('\n'));
  fs.writeFileSync(path.join(dir, 'README.md'), 'bench\n');
  chownTree(dir, 1000, 1000);
  return dir;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

const cliDir = project('cli-project', `cli-${id}`);
const berthDir = project('berth-project', `berth-${id}`);
const cliUp = (...extra: string[]) => ['npx', ...CLI, 'up', '--workspace-folder', cliDir, '--id-label', LABEL, ...extra];
const core = createCore({ dataDir: path.join(root, 'data'), reapIntervalMs: 0, pressureEveryMs: 0 });
const profile = `bench-env-${id}`;
let failed = false;
try {
  // npx fetches the CLI once before the clock starts.
  await run('npx', [...CLI, '--version']);
  await core.profiles.create({ name: profile, image: 'berth-test:busybox', egress: 'open', warmPool: 1 });
  const cliFirst = await timed(() => run(cliUp()[0] as string, cliUp().slice(1)));
  const chat1 = (await core.chats.create({ profile })).id;
  await core.workspace.attach({ chatId: chat1, path: berthDir });
  const berthFirst = await timed(() => core.environment.use({ chatId: chat1, folder: berthDir, config: '.devcontainer/devcontainer.json' }));
  const cliSecond = await timed(() => run(cliUp()[0] as string, cliUp('--remove-existing-container').slice(1)));
  // The pool made again from the prepared image (it takes about as long as one sandbox start).
  for (const deadline = Date.now() + 120_000; core.warmReady(profile) < 1; ) {
    if (Date.now() > deadline) throw new Error('No warm sandbox became ready within 2 minutes.');
    await new Promise((r) => setTimeout(r, 20));
  }
  const chat2 = (await core.chats.create({ profile })).id;
  await core.workspace.attach({ chatId: chat2, path: berthDir });
  const berthSecond = await timed(() => core.environment.use({ chatId: chat2, folder: berthDir, config: '.devcontainer/devcontainer.json' }));
  if (berthFirst.value.reused || !berthSecond.value.reused) throw new Error('Berth built when it should have reused, or the other way round.');
  const check = await core.sandbox.exec({ chatId: chat2, command: '/opt/tool/berth-tool; cat /opt/tool/marker; id -un; echo "$GREETING"' });
  const images = (await docker('images', '--format', '{{.Repository}}:{{.Tag}} {{.Size}}')).split('\n').filter((l) => l.includes('vsc-cli-project') || l.includes(String(berthSecond.value.image)) || l.includes('berth-env-base'));
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const first = berthFirst.ms / cliFirst.ms;
  const second = berthSecond.ms / cliSecond.ms;
  console.log(`Commands:\n  CLI first:  ${cliUp().join(' ')}\n  CLI second: ${cliUp('--remove-existing-container').join(' ')}\n  Berth: environment.use on a chat with the folder attached (Review mode), then again on a new chat (profile warmPool: 1)`);
  console.log(`First preparation: CLI ${s(cliFirst.ms)}, Berth ${s(berthFirst.ms)} → ${first.toFixed(2)}× (target ≤ 1.2×) ${first <= 1.2 ? 'met' : 'NOT met'}`);
  console.log(`Second chat:       CLI ${s(cliSecond.ms)}, Berth ${s(berthSecond.ms)} → ${second.toFixed(2)}× (target ≤ 0.1×) ${second <= 0.1 ? 'met' : 'NOT met'}`);
  console.log(`Berth's second chat runs: ${check.output.trim().split('\n').join(' | ')}`);
  console.log(`Images on the engine:\n  ${images.join('\n  ')}`);
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  // Everything it made: the CLI's containers and images, Berth's chats, sandboxes and prepared images.
  const cliContainers = (await docker('ps', '-aq', '--filter', `label=${LABEL}`)).split('\n').filter(Boolean);
  if (cliContainers.length) await docker('rm', '-f', ...cliContainers).catch(() => '');
  const cliImages = (await docker('images', '--format', '{{.Repository}}')).split('\n').filter((r) => r.startsWith('vsc-cli-project-'));
  for (const image of cliImages) await docker('rmi', '-f', image).catch(() => '');
  const envImages = (await docker('images', '-q', '--filter', 'label=berth.env.key', '--filter', `label=berth.env.source=berth-project/.devcontainer/devcontainer.json`)).split('\n').filter(Boolean);
  const { chats } = await core.chats.list({});
  for (const c of chats) await core.chats.delete({ chatId: c.id }).catch(() => undefined);
  await core.profiles.delete({ name: profile }).catch(() => undefined);
  const instance = core.instanceId;
  await core.dispose();
  await removeInstanceContainers(instance);
  const bases = (await docker('images', '--format', '{{.Repository}}:{{.Tag}}')).split('\n').filter((t) => t.startsWith('berth-env-base:'));
  for (const image of [...new Set(envImages)]) await docker('rmi', '-f', image).catch(() => '');
  for (const base of bases) {
    const labels = await docker('image', 'inspect', '-f', '{{index .Config.Labels "berth.env.key"}}', base).catch(() => '');
    if (!(await docker('images', '-q', '--filter', `label=berth.env.key=${labels.trim()}`, '--filter', 'label=berth.env.role=prepared')).trim()) await docker('rmi', '-f', base).catch(() => '');
  }
  fs.rmSync(root, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/**
 * Integration tests need the real engine and the local test images (scripts/build-test-images.sh).
 * After the run, nothing a test made may be left on the engine. Only this run's instances and
 * networks are looked at: a Berth the developer is using at the same time is never touched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BOOKWORM, BUSYBOX, dockerOk, dockerOkAt, removeInstanceContainers, removeInstanceImages } from './docker.js';
import { recordedIn } from './testRun.js';

/**
 * Vitest loads this once per project that lists it (integration, e2e), in one process: the
 * checks and the run folder are done once, and the leak check runs after the last project.
 */
const shared = globalThis as { berthTestRun?: { ready: Promise<string>; users: number } };
let runDir = '';

export async function setup(): Promise<void> {
  if (shared.berthTestRun) {
    shared.berthTestRun.users++;
  } else {
    shared.berthTestRun = { ready: prepare(), users: 1 };
  }
  runDir = await shared.berthTestRun.ready;
}

/** BERTH_TEST_ENGINE: run the integration tests against another engine (scripts/podman-setup.sh starts these). */
const TEST_ENGINES: Record<string, string> = {
  'podman-rootful': 'unix:///run/podman/podman.sock',
  'podman-rootless': 'unix:///run/berthpod/podman/podman.sock',
};

async function prepare(): Promise<string> {
  const chosen = process.env.BERTH_TEST_ENGINE;
  if (chosen && chosen !== 'docker') {
    const host = TEST_ENGINES[chosen];
    if (!host) throw new Error(`BERTH_TEST_ENGINE=${chosen} is not one of docker, ${Object.keys(TEST_ENGINES).join(', ')}.`);
    // The test workers, their cores and the docker CLI they run all inherit it.
    process.env.DOCKER_HOST = host;
  }
  if (!(await dockerOk('version', '--format', '{{.Server.Version}}'))) {
    throw new Error('The integration tests need a running Docker engine: run `bash ../shared/engine/ensure-docker.sh` (or start Docker).');
  }
  for (const image of [BUSYBOX, BOOKWORM]) {
    if (!(await dockerOk('image', 'inspect', image))) {
      throw new Error(`The integration tests need the local image ${image}: run \`bash scripts/build-test-images.sh\`.`);
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-test-run-'));
  process.env.BERTH_TEST_RUN_DIR = dir;
  return dir;
}

export async function teardown(): Promise<void> {
  if (shared.berthTestRun && --shared.berthTestRun.users > 0) return;
  delete shared.berthTestRun;
  // Each on the engine it was made on (the podman project's on Podman).
  const left: string[] = [];
  for (const { value, host } of recordedIn(runDir, 'instances')) left.push(...(await removeInstanceContainers(value, { host: host ?? undefined })));
  // Environment images are shared between test files through their tags, so a file's own
  // clean-up can miss one another file made meanwhile: every image this run's Berths made goes here.
  for (const { value, host } of recordedIn(runDir, 'instances')) await removeInstanceImages(value, host ?? undefined);
  const nets: string[] = [];
  for (const { value, host } of recordedIn(runDir, 'networks')) {
    if (!(await dockerOkAt(host ?? undefined, 'network', 'inspect', value))) continue;
    nets.push(value);
    await dockerOkAt(host ?? undefined, 'network', 'rm', value);
  }
  fs.rmSync(runDir, { recursive: true, force: true });
  if (left.length || nets.length) {
    throw new Error(`Tests left ${left.length} containers and ${nets.length} networks behind (now removed): a teardown is missing. Networks: ${nets.join(', ')}`);
  }
}

/**
 * Integration tests need the real engine and the local test images (scripts/build-test-images.sh).
 * After the run, nothing labelled berth.app may be left on the engine.
 */
import { containersWithLabel, docker, dockerOk } from './docker.js';

export async function setup(): Promise<void> {
  if (!(await dockerOk('version', '--format', '{{.Server.Version}}'))) {
    throw new Error('The integration tests need a running Docker engine: run `bash ../shared/engine/ensure-docker.sh` (or start Docker).');
  }
  for (const image of ['berth-test:busybox', 'berth-test:bookworm']) {
    if (!(await dockerOk('image', 'inspect', image))) {
      throw new Error(`The integration tests need the local image ${image}: run \`bash scripts/build-test-images.sh\`.`);
    }
  }
}

export async function teardown(): Promise<void> {
  const left = await containersWithLabel('berth.app');
  const nets = (await docker('network', 'ls', '-q', '--filter', 'label=berth.app')).split('\n').filter(Boolean);
  if (left.length) await docker('rm', '-f', ...left);
  for (const n of nets) await dockerOk('network', 'rm', n);
  if (left.length || nets.length) {
    throw new Error(`Tests left ${left.length} containers and ${nets.length} networks labelled berth.app behind (now removed): a teardown is missing.`);
  }
}

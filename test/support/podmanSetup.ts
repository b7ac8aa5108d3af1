/**
 * The podman project's check before its files run (vitest.config.ts): rootful Podman answers on
 * its socket and has the test images (scripts/podman-setup.sh loads them), so a missing set-up
 * fails once with what to do rather than in every case.
 */
import { BOOKWORM, BUSYBOX, dockerOkAt } from './docker.js';
import { PODMAN_HOST } from './podmanProject.js';

export async function setup(): Promise<void> {
  if (!(await dockerOkAt(PODMAN_HOST, 'version', '--format', '{{.Server.Version}}'))) {
    throw new Error(`The podman project needs rootful Podman on ${PODMAN_HOST}: run \`bash scripts/podman-setup.sh\`.`);
  }
  for (const image of [BUSYBOX, BOOKWORM]) {
    if (!(await dockerOkAt(PODMAN_HOST, 'image', 'inspect', image))) {
      throw new Error(`Rootful Podman lacks the test image ${image}: run \`bash scripts/podman-setup.sh\` (it loads the images built by scripts/build-test-images.sh).`);
    }
  }
}

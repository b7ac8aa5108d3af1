/**
 * The core's integration files that apply to Podman, run a second time against rootful Podman
 * (the `podman` project in vitest.config.ts, beside the Docker one). Which files, and why the
 * others do not apply, is said in the README ("Podman", Tests).
 */
import http from 'node:http';

export const PODMAN_SOCKET = '/run/podman/podman.sock';
export const PODMAN_HOST = `unix://${PODMAN_SOCKET}`;

/** Lifecycle, isolation, mounts, exec, terminal, network: what Berth does differently on Podman. */
export const PODMAN_FILES = ['lifecycle', 'isolation', 'mountRace', 'writableFolders', 'exec', 'terminal', 'network'].map((f) => `test/integration/${f}.test.ts`);

/** Whether rootful Podman answers (a 3 s ping), asked once when the config loads. */
export function podmanAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath: PODMAN_SOCKET, path: '/_ping', timeout: 3000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

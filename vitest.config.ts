import { defineConfig } from 'vitest/config';
import { PODMAN_FILES, PODMAN_HOST, podmanAnswers } from './test/support/podmanProject.js';

/**
 * The podman project runs where rootful Podman answers (scripts/podman-setup.sh), and must
 * when BERTH_REQUIRE_PODMAN is set (CI: then its set-up check fails the run instead).
 */
const podman = Boolean(process.env.BERTH_REQUIRE_PODMAN) || (await podmanAnswers());
if (!podman) console.warn(`vitest: no podman project: rootful Podman does not answer on ${PODMAN_HOST} (bash scripts/podman-setup.sh starts it).`);

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['shared/**/*.test.ts', 'electron/**/*.test.ts', 'test/unit/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Two cores: integration files share one engine, so they run one at a time.
          fileParallelism: false,
          globalSetup: ['test/support/globalSetup.ts'],
        },
      },
      ...(podman
        ? [
            {
              test: {
                // The same files again on rootful Podman, beside the Docker run (projects run in parallel).
                name: 'podman',
                include: PODMAN_FILES,
                testTimeout: 60_000,
                hookTimeout: 120_000,
                fileParallelism: false,
                globalSetup: ['test/support/podmanSetup.ts', 'test/support/globalSetup.ts'],
                // The workers, their cores and the docker CLI the tests run all go to Podman.
                env: { DOCKER_HOST: PODMAN_HOST },
              },
            },
          ]
        : []),
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          globalSetup: ['test/support/globalSetup.ts'],
          setupFiles: ['e2e/support/pageWatch.setup.ts'],
          // A loaded machine takes seconds to draw what a user waits for: expect.poll waits for
          // the condition (up to 30 s), never for a time, instead of vitest's 1 s default.
          expect: { poll: { timeout: 30_000 } },
        },
      },
      {
        test: {
          name: 'renderer',
          include: ['renderer/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['renderer/test/setup.ts'],
          // The setup file lets findBy* wait up to 10 s for a condition under load; a test must
          // be allowed at least that long.
          testTimeout: 20_000,
        },
      },
    ],
  },
});

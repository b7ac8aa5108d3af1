import { defineConfig } from 'vitest/config';

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
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          globalSetup: ['test/support/globalSetup.ts'],
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
        },
      },
    ],
  },
});

/**
 * The run folder the global setup makes (BERTH_TEST_RUN_DIR): what this run made is written
 * there, so the global teardown checks for leftovers of this run only.
 */
import fs from 'node:fs';
import path from 'node:path';

export type RunRecord = 'instances' | 'networks';

/**
 * Notes a Berth instance id or a network name this run made, with the engine it was made on
 * (DOCKER_HOST: the podman project's workers point at Podman); a no-op outside the test run.
 */
export function record(kind: RunRecord, value: string): void {
  const dir = process.env.BERTH_TEST_RUN_DIR;
  if (dir) fs.appendFileSync(path.join(dir, kind), `${JSON.stringify({ value, host: process.env.DOCKER_HOST ?? null })}\n`);
}

/** What was recorded of one kind, each with the engine (DOCKER_HOST, or null for the default) it was made on. */
export function recordedIn(dir: string, kind: RunRecord): { value: string; host: string | null }[] {
  const file = path.join(dir, kind);
  if (!fs.existsSync(file)) return [];
  const lines = [...new Set(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean))];
  return lines.map((l) => JSON.parse(l) as { value: string; host: string | null });
}

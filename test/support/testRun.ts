/**
 * The run folder the global setup makes (BERTH_TEST_RUN_DIR): what this run made is written
 * there, so the global teardown checks for leftovers of this run only.
 */
import fs from 'node:fs';
import path from 'node:path';

export type RunRecord = 'instances' | 'networks';

/** Notes a Berth instance id or a network name this run made; a no-op outside the test run. */
export function record(kind: RunRecord, value: string): void {
  const dir = process.env.BERTH_TEST_RUN_DIR;
  if (dir) fs.appendFileSync(path.join(dir, kind), `${value}\n`);
}

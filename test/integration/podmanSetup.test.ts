/**
 * scripts/podman-setup.sh (which .ci/run runs) from a clone whose folder the rootless Podman
 * user may not enter: a clone in a user's 0700 home is the common case. Rootless Podman
 * changes into the folder it was started from, so the script used to stop with "cannot chdir
 * to <clone>: Permission denied" when it asked the rootless side about the test images. It
 * must work there without loosening anyone's permissions. Needs root and the set-up done once
 * (its second run only checks, which is what this runs).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOTLESS_SOCKET = '/run/berthpod/podman/podman.sock';

const answers = await new Promise<boolean>((resolve) => {
  const req = http.get({ socketPath: ROOTLESS_SOCKET, path: '/_ping', timeout: 3000 }, (res) => {
    res.resume();
    resolve(res.statusCode === 200);
  });
  req.on('timeout', () => req.destroy());
  req.on('error', () => resolve(false));
});
const missing = process.getuid?.() !== 0 ? 'the set-up script needs root' : answers ? null : `rootless Podman does not answer on ${ROOTLESS_SOCKET}: run \`bash scripts/podman-setup.sh\``;
if (missing && process.env.BERTH_REQUIRE_PODMAN) throw new Error(missing);
if (missing) console.warn(`podmanSetup.test.ts: skipping: ${missing}`);

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-closed-home-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe.skipIf(missing !== null)('scripts/podman-setup.sh', () => {
  it('runs from a clone in a folder only its owner may enter, and leaves that folder closed', () => {
    fs.chmodSync(home, 0o700);
    const clone = path.join(home, 'berth');
    fs.mkdirSync(path.join(clone, 'scripts'), { recursive: true });
    fs.copyFileSync(path.resolve('scripts/podman-setup.sh'), path.join(clone, 'scripts', 'podman-setup.sh'));
    const run = spawnSync('bash', [path.join(clone, 'scripts', 'podman-setup.sh')], { encoding: 'utf8', timeout: 300_000 });
    expect(run.stderr).not.toMatch(/cannot chdir/);
    expect(run.status, run.stderr).toBe(0);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
  }, 320_000);
});

/**
 * A real image registry on loopback (Debian's docker-registry, the CNCF distribution server),
 * so image pulls and their progress are tested without the internet.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { docker } from './docker.js';
import { waitFor } from './waitFor.js';
import { freePort } from './freePort.js';

export interface LocalRegistry {
  host: string;
  stop(): Promise<void>;
}


export const REGISTRY_BINARY = '/usr/bin/docker-registry';

export async function startRegistry(root: string): Promise<LocalRegistry> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(root, 'registry-'));
  const config = path.join(dir, 'config.yml');
  fs.writeFileSync(
    config,
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  );
  const child: ChildProcess = spawn(REGISTRY_BINARY, ['serve', config], { stdio: 'ignore' });
  await waitFor(
    () => fetch(`http://127.0.0.1:${port}/v2/`).then((r) => r.ok, () => false),
    'the local registry to answer',
  );
  return {
    host: `127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Pushes a local image to the registry under a new name, then forgets it locally so it must be pulled. */
export async function publish(registry: LocalRegistry, localImage: string, name: string): Promise<string> {
  const ref = `${registry.host}/${name}`;
  await docker('tag', localImage, ref);
  await docker('push', ref);
  await docker('rmi', ref);
  return ref;
}

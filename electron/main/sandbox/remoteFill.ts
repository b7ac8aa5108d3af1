/**
 * Filling a new container's volumes on a remote engine: the home (owned by the sandbox user)
 * and a copy of each attached folder, through the engine's archive calls. A volume that
 * already existed keeps its content: the chat's work in its copy survives a recreate.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Engine } from '../engine/dockerEngine.js';
import { APP_LABEL_VALUE, LABEL, SANDBOX_HOME, type ContainerCreateBody } from '../policy/containerSpec.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import { remoteVolumeLabels } from '../policy/remoteSpec.js';
import { fillCopy, ownCopyRoot } from '../workspace/remoteCopy.js';

interface VolumeMountLike {
  Type: string;
  Source: string;
  Target: string;
}

function volumesOf(body: ContainerCreateBody): VolumeMountLike[] {
  return (body.HostConfig.Mounts as unknown as VolumeMountLike[]).filter((m) => m.Type === 'volume');
}

/** Before create (the engine would make a missing volume itself, unlabelled): which volumes are new. */
export async function prepareRemoteVolumes(engine: Engine, body: ContainerCreateBody): Promise<Set<string>> {
  const labels = remoteVolumeLabels({ ...body.Labels, [LABEL.app]: APP_LABEL_VALUE });
  const fresh = new Set<string>();
  for (const m of volumesOf(body)) if (await engine.ensureVolume(m.Source, labels)) fresh.add(m.Source);
  return fresh;
}

/** After create, before start: fills the new volumes. */
export async function fillRemote(
  engine: Engine,
  containerId: string,
  body: ContainerCreateBody,
  fresh: ReadonlySet<string>,
  mounts: readonly PlannedMount[],
  dataDir: string,
  user: string,
): Promise<void> {
  const [uid, gid] = user.split(':').map(Number) as [number, number];
  const owner = { uid, gid };
  const scratch = path.join(dataDir, 'tmp');
  fs.mkdirSync(scratch, { recursive: true, mode: 0o700 });
  for (const m of volumesOf(body)) {
    if (!fresh.has(m.Source)) continue;
    const place = { engine, containerId, containerPath: m.Target };
    if (m.Target === SANDBOX_HOME) await ownCopyRoot(place, owner, scratch);
    else {
      const source = mounts.find((p) => p.target === m.Target)?.source;
      if (source) await fillCopy(place, source, owner);
    }
  }
}

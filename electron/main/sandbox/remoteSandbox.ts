/**
 * What a sandbox on a remote engine needs beyond a local one (SandboxContainers calls these): the
 * refusal of folders it would write into directly, the image carried from this computer's
 * engine, and its Review copies mirrored back here, one run at a time per key. Filling its
 * volumes at create is remoteFill.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { Engine, PullProgress } from '../engine/dockerEngine.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import { directWritesOnRemote } from '../policy/remoteSpec.js';
import { fetchCopy, mirrorCopy } from '../workspace/remoteCopy.js';
import type { BaseImage } from './baseImage.js';

/** A remote engine cannot bind a folder of this computer: a folder the chat would write into directly is refused. */
export function refuseDirectOnRemote(mounts: readonly PlannedMount[], label: string): void {
  const direct = directWritesOnRemote(mounts);
  if (direct.length === 0) return;
  throw new BerthError(
    'workspace_refused',
    `This chat's sandbox runs on the remote engine ${label}, which cannot write into folders of this computer; ${direct.map((d) => `"${d}"`).join(', ')} ${direct.length === 1 ? 'is' : 'are'} attached read-write.`,
    { hint: 'Attach the folder in Review mode (the chat works on a copy there and you apply its changes from the Changes panel) or read-only, or use the default engine for this profile.' },
  );
}

export interface CarryImageRequest {
  image: string;
  /** This computer's engine, where the image is looked for (or Berth's base image built). */
  local: Engine;
  remote: Engine;
  /** The remote engine's name for messages. */
  label: string;
  baseImage: BaseImage;
  onProgress(phase: 'building' | 'pulling', message: string, fraction: number | null): void;
}

/**
 * A remote engine lacking the image gets it from this computer's engine when that has it (or
 * builds Berth's base image here first): `docker save | docker load` through the two engines'
 * APIs, no registry. Anything else is pulled by the remote engine itself. Returns the notices
 * the chat is shown.
 */
export async function carryImage(req: CarryImageRequest): Promise<string[]> {
  const { image, local, remote, label, baseImage } = req;
  const notices: string[] = [];
  let here = await local.hasImage(image).catch(() => false);
  if (!here && image === baseImage.tag) {
    req.onProgress('building', `Building Berth's base image ${image} on this computer (first run only)…`, 0);
    notices.push(await baseImage.build((p: PullProgress) => req.onProgress('building', p.message, p.fraction)));
    here = true;
  }
  if (!here) {
    req.onProgress('pulling', `Downloading the image ${image}…`, 0);
    await remote.pullImage(image, (p) => req.onProgress('pulling', p.message, p.fraction));
    return notices;
  }
  req.onProgress('pulling', `Copying the image ${image} to ${label}…`, null);
  await remote.loadImage(await local.exportImage(image));
  if (!(await remote.hasImage(image))) {
    throw new BerthError('image_unavailable', `The image ${image} was sent to ${label} but it does not have it now.`, {
      hint: 'Check the remote engine (docker image ls there) and try again.',
    });
  }
  notices.push(`The image ${image} was copied from this computer's engine to ${label}.`);
  return notices;
}

/** Where a remote sandbox is now: its engine and container. */
export interface RemoteContainer {
  engine: Engine;
  containerId: string;
}

/**
 * A remote sandbox's Review copies → their copies on this computer (the ones the Changes panel
 * lists and Apply reads): files, folders and links as links, never through a link. Calls for
 * one key while one runs share the next run, so the last call always sees the latest content.
 */
export class RemoteCopySync {
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly dataDir: string) {}

  sync(key: string, where: () => RemoteContainer | null, mounts: readonly PlannedMount[]): Promise<void> {
    const before = this.running.get(key) ?? Promise.resolve();
    const next = before.then(() => this.once(where(), mounts));
    const tail = next.catch(() => undefined);
    this.running.set(key, tail);
    void tail.then(() => {
      if (this.running.get(key) === tail) this.running.delete(key);
    });
    return next;
  }

  private async once(where: RemoteContainer | null, mounts: readonly PlannedMount[]): Promise<void> {
    if (!where) return;
    const scratch = path.join(this.dataDir, 'tmp');
    fs.mkdirSync(scratch, { recursive: true, mode: 0o700 });
    for (const m of mounts) {
      if (m.origin !== 'review' || m.readOnly) continue;
      // Only what changed is written out and compared (fetchCopy's quick check against the copy
      // here), within Review's caps: a file over its per-file cap is never written here, and the
      // Changes panel lists it as too large (policy/mirrorLimits).
      const fetched = await fetchCopy({ engine: where.engine, containerId: where.containerId, containerPath: m.target }, scratch, m.source);
      try {
        mirrorCopy(fetched.dir, m.source, fetched.unchanged, fetched);
      } finally {
        fs.rmSync(fetched.dir, { recursive: true, force: true });
      }
    }
  }
}

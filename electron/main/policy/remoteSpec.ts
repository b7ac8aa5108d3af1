/**
 * A container for an engine whose files are not this computer's (ssh://, tcp://): a bind
 * mount there would name a path on the engine's machine, so no local path is ever bound.
 * The home becomes a named volume on that engine; an attached folder becomes a volume holding
 * a copy (workspace/remoteCopy), and one without a copy is refused. Pure.
 */
import { createHash } from 'node:crypto';
import { LABEL, SANDBOX_HOME, type ContainerCreateBody, type EngineMount } from './containerSpec.js';
import type { PlannedMount } from './mountPlan.js';

export interface VolumeMount {
  Type: 'volume';
  Source: string;
  Target: string;
  ReadOnly: boolean;
}

/** The home volume's name on a remote engine, one per container name. */
export function homeVolumeFor(containerName: string): string {
  return `${containerName}-home`;
}

/**
 * The copy volume of an attached folder, one per container, mount target and source: a folder
 * attached later at the same target (a new Review copy) never finds an older copy's content.
 */
export function copyVolumeFor(containerName: string, target: string, source: string): string {
  const slug = target.replace(/^\/+/, '').replace(/[^A-Za-z0-9_.-]+/g, '_') || 'root';
  const of = createHash('sha256').update(source).digest('hex').slice(0, 10);
  return `${containerName}-copy-${slug.slice(0, 150)}-${of}`;
}

export function specForRemoteEngine(spec: ContainerCreateBody): ContainerCreateBody {
  const mounts = spec.HostConfig.Mounts.map((m: EngineMount): VolumeMount => {
    if (m.Target === SANDBOX_HOME) return { Type: 'volume', Source: homeVolumeFor(spec.name), Target: m.Target, ReadOnly: false };
    return { Type: 'volume', Source: copyVolumeFor(spec.name, m.Target, m.Source), Target: m.Target, ReadOnly: m.ReadOnly };
  });
  // The engine takes either kind; the spec's type names binds only because local engines use nothing else.
  return { ...spec, HostConfig: { ...spec.HostConfig, Mounts: mounts as unknown as EngineMount[] } };
}

/**
 * The mounts that would let the sandbox write straight into a folder of this computer
 * (read-write attachments and profile mounts): impossible on a remote engine, whose copies
 * come back only through Review's Apply. Review copies and read-only folders are copied.
 */
export function directWritesOnRemote(mounts: readonly Pick<PlannedMount, 'source' | 'readOnly' | 'origin'>[]): string[] {
  return mounts.filter((m) => m.origin !== 'review' && !m.readOnly).map((m) => m.source);
}

/** Where a home-copy helper mounts the two homes: the archive of the first, unpacked into the second's parent, lands in the second. */
export const HOME_COPY_FROM = '/berth-home-copy/from/home';
export const HOME_COPY_TO = '/berth-home-copy/to/home';

/**
 * A never-started container on a remote engine that mounts one chat's home volume (read-only)
 * and another's, so a fork's home is copied there by the engine's archive calls (a remote home is
 * a volume there, nothing of it on this computer). `spec`: the helper built as any sandbox is
 * (buildContainerSpec: capabilities dropped, no-new-privileges, non-root, limits, labels, no
 * network); its binds are replaced by the two volumes.
 */
export function homeCopySpec(spec: ContainerCreateBody, fromVolume: string, toVolume: string): ContainerCreateBody {
  const mounts: VolumeMount[] = [
    { Type: 'volume', Source: fromVolume, Target: HOME_COPY_FROM, ReadOnly: true },
    { Type: 'volume', Source: toVolume, Target: HOME_COPY_TO, ReadOnly: false },
  ];
  return { ...spec, HostConfig: { ...spec.HostConfig, Mounts: mounts as unknown as EngineMount[] } };
}

/**
 * The labels of a remote sandbox's volumes: its key's, and its chat's and profile's, so deleting
 * the chat (or the profile) removes them whether or not a container still names them (a fork's
 * home is made before its first container, and a sandbox moved to another engine leaves its
 * home behind).
 */
export function remoteVolumeLabels(containerLabels: Readonly<Record<string, string>>): Record<string, string> {
  const pick = [LABEL.app, LABEL.instance, LABEL.key, LABEL.chat, LABEL.profile];
  return Object.fromEntries(pick.flatMap((k) => (containerLabels[k] ? [[k, containerLabels[k]]] : [])));
}

/**
 * A container for an engine whose files are not this computer's (ssh://, tcp://): a bind
 * mount there would name a path on the engine's machine, so no local path is ever bound.
 * The home becomes a named volume on that engine; an attached folder becomes a volume holding
 * a copy (workspace/remoteCopy), and one without a copy is refused. Pure.
 */
import { SANDBOX_HOME, type ContainerCreateBody, type EngineMount } from './containerSpec.js';

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

/** The copy volume of an attached folder, one per container and mount target. */
export function copyVolumeFor(containerName: string, target: string): string {
  const slug = target.replace(/^\/+/, '').replace(/[^A-Za-z0-9_.-]+/g, '_') || 'root';
  return `${containerName}-copy-${slug}`.slice(0, 200);
}

export function specForRemoteEngine(spec: ContainerCreateBody): ContainerCreateBody {
  const mounts = spec.HostConfig.Mounts.map((m: EngineMount): VolumeMount => {
    if (m.Target === SANDBOX_HOME) return { Type: 'volume', Source: homeVolumeFor(spec.name), Target: m.Target, ReadOnly: false };
    return { Type: 'volume', Source: copyVolumeFor(spec.name, m.Target), Target: m.Target, ReadOnly: m.ReadOnly };
  });
  // The engine takes either kind; the spec's type names binds only because local engines use nothing else.
  return { ...spec, HostConfig: { ...spec.HostConfig, Mounts: mounts as unknown as EngineMount[] } };
}

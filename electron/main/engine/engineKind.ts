/**
 * Which engine answers on the Docker API: Docker, or Podman's Docker-compatible service
 * (rootful or rootless). Podman differs where Berth's hardening depends on it (networks, limits),
 * so the shared paths ask this once and take Podman's own way where it has one. Pure parsing.
 */

export type EngineKind =
  | { name: 'docker' }
  | {
      name: 'podman';
      version: string;
      rootless: boolean;
      /** 'v1' or 'v2'. Rootless Podman on cgroup v1 cannot limit memory, processes or CPU at all. */
      cgroupVersion: string;
      /** The cgroup controllers Podman can use; a sandbox needs memory, pids and cpu. */
      cgroupControllers: string[];
    };

/** The controllers the sandbox's limits need (memory, process count, CPU share). */
export const LIMIT_CONTROLLERS = ['memory', 'pids', 'cpu'] as const;

/** /version's Components: Podman names itself "Podman Engine" there; Docker says "Engine". */
export function isPodmanVersion(version: { Components?: { Name?: unknown }[] | null }): boolean {
  return (version.Components ?? []).some((c) => typeof c.Name === 'string' && /^podman\b/i.test(c.Name));
}

/** Podman's own /libpod/info answer, the parts Berth reads. */
export interface LibpodInfo {
  host?: {
    security?: { rootless?: unknown };
    cgroupVersion?: unknown;
    cgroupControllers?: unknown;
  };
  version?: { Version?: unknown };
}

export function podmanKind(info: LibpodInfo): Extract<EngineKind, { name: 'podman' }> {
  const host = info.host ?? {};
  return {
    name: 'podman',
    version: typeof info.version?.Version === 'string' ? info.version.Version : '',
    rootless: host.security?.rootless === true,
    cgroupVersion: typeof host.cgroupVersion === 'string' ? host.cgroupVersion : '',
    cgroupControllers: Array.isArray(host.cgroupControllers) ? host.cgroupControllers.filter((c): c is string => typeof c === 'string') : [],
  };
}

/** The limit controllers this Podman cannot use (none missing: it can enforce a sandbox's limits). */
export function missingLimitControllers(kind: EngineKind): string[] {
  if (kind.name !== 'podman') return [];
  return LIMIT_CONTROLLERS.filter((c) => !kind.cgroupControllers.includes(c));
}

/** How the status line and errors name the engine. */
export function describeKind(kind: EngineKind): string {
  return kind.name === 'docker' ? 'Docker' : `${kind.rootless ? 'rootless' : 'rootful'} Podman ${kind.version}`.trim();
}

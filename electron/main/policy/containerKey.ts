/**
 * Which container a task's commands run in. Pure: the caller supplies the profile and a
 * lookup of registered tasks; nothing here touches Docker or the store.
 */
import { DEFAULT_PROFILE } from '../../../shared/contract.js';

export interface KeyProfile {
  name: string;
  backend: 'docker' | 'local';
  containerScope: 'chat' | 'shared';
}

export interface TaskOverride {
  image?: string | null;
  backend?: 'docker' | 'local' | null;
  /** A cwd alone does not earn a task its own container. */
  cwd?: string | null;
}

export interface TaskRegistration {
  /** Raw id (unqualified) of the task this one is an alias of, in the same profile. */
  parentId: string | null;
  override: TaskOverride | null;
}

/** Finds a chat or registered task by its profile-qualified id. */
export type TaskLookup = (qualifiedId: string) => TaskRegistration | undefined;

export type ContainerTarget =
  | { kind: 'container'; key: string; ownerTaskId: string | null }
  | { kind: 'local'; profile: string };

/**
 * Qualifies a raw id by its profile so the same raw id in two profiles never meets: the
 * default profile's ids become `default:<id>`, a named profile's `profile:<name>:<id>`.
 * The name is URI-encoded so a ':' in it cannot make two qualified ids collide.
 */
export function qualifyTaskId(profile: string, rawId: string): string {
  return profile === DEFAULT_PROFILE ? `default:${rawId}` : `profile:${encodeURIComponent(profile)}:${rawId}`;
}

/** The key of the profile's one shared container; it never equals any qualified task id. */
export function profileDefaultKey(profile: string): string {
  return profile === DEFAULT_PROFILE ? 'default' : `profile:${encodeURIComponent(profile)}`;
}

function hasOwnRuntime(override: TaskOverride | null): boolean {
  return Boolean(override && (override.image || override.backend));
}

export function resolveContainerKey(profile: KeyProfile, rawTaskId: string | null, lookup: TaskLookup): ContainerTarget {
  const defaultTarget = (): ContainerTarget =>
    profile.backend === 'local'
      ? { kind: 'local', profile: profile.name }
      : { kind: 'container', key: profileDefaultKey(profile.name), ownerTaskId: null };

  if (rawTaskId === null) return defaultTarget();

  const visited = new Set<string>();
  let current = rawTaskId;
  for (;;) {
    const qualified = qualifyTaskId(profile.name, current);
    const registration = lookup(qualified);
    visited.add(current);

    if (registration && hasOwnRuntime(registration.override)) {
      const backend = registration.override?.backend ?? profile.backend;
      return backend === 'local'
        ? { kind: 'local', profile: profile.name }
        : { kind: 'container', key: qualified, ownerTaskId: current };
    }

    const parent = registration?.parentId ?? null;
    if (parent === null || visited.has(parent)) {
      // A root, or the walk came back to a member of a cycle: this member ends it.
      if (profile.backend === 'local') return { kind: 'local', profile: profile.name };
      return profile.containerScope === 'shared'
        ? defaultTarget()
        : { kind: 'container', key: qualified, ownerTaskId: current };
    }
    if (!lookup(qualifyTaskId(profile.name, parent))) return defaultTarget();
    current = parent;
  }
}

/**
 * A folder's devcontainer.json (already parsed from JSON with comments) → what Berth makes of
 * it: the plan it honours, the keys it ignores and why, or the sentences that refuse it. Pure.
 * Semantics after the Dev Container specification (containers.dev, devcontainerjson-reference):
 * paths in `build` are relative to the devcontainer.json's folder, `build.context` defaults to
 * that folder; lifecycle commands are a string (run by a shell), an array (run as is, no shell)
 * or an object of named commands of either form (run in parallel, all must succeed).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

export type LifecycleCommand = string | string[] | Record<string, string | string[]>;

export const LIFECYCLE_KEYS = ['onCreateCommand', 'updateContentCommand', 'postCreateCommand', 'postStartCommand'] as const;
export type LifecycleKey = (typeof LIFECYCLE_KEYS)[number];

export interface EnvironmentPlan {
  /** The devcontainer.json's path inside the folder, posix. */
  source: string;
  image: string | null;
  /** Paths relative to the attached folder's root, posix, never outside it. */
  build: { dockerfile: string; context: string; args: Record<string, string>; target: string | null } | null;
  containerEnv: Record<string, string>;
  remoteEnv: Record<string, string>;
  /** The user's name or uid as the file gives it (never root). */
  user: string | null;
  commands: Record<LifecycleKey, LifecycleCommand | null>;
  forwardPorts: { port: number; label: string | null }[];
  /** Where terminals and the agent start, inside the container; null: Berth's usual. */
  workspaceFolder: string | null;
  ignored: { key: string; reason: string }[];
}

export type PlanResult = { ok: true; plan: EnvironmentPlan } | { ok: false; problems: string[] };

/** Keys Berth never honours, each with the reason the chat shows. */
export const NEVER_HONOURED: Record<string, string> = {
  privileged: 'a privileged container could reach this computer; Berth drops every capability',
  capAdd: 'Berth drops every capability, so none is added back',
  securityOpt: "Berth's own security options (no-new-privileges, seccomp, AppArmor) are kept",
  runArgs: 'docker run arguments could undo the sandbox (host network, mounts, devices)',
  mounts: 'only the folders attached to the chat are mounted',
  workspaceMount: 'Berth mounts the attached folders itself',
  init: 'Berth runs its own long-lived shell as the first process',
  dockerComposeFile: 'Docker Compose files start containers outside Berth’s rules',
  initializeCommand: 'it runs on this computer, not in the sandbox',
  appPort: 'ports are reached through Berth’s forwards, not published on this computer',
  overrideCommand: 'Berth always runs its own shell as the container’s command',
  shutdownAction: 'Berth stops sandboxes by its own retention settings',
  hostRequirements: 'the profile’s limits decide the sandbox’s resources',
};

/** Keys that only describe editors or are read elsewhere: not listed as ignored. */
const QUIET = new Set(['name', 'customizations', '$schema', 'otherPortsAttributes', 'waitFor', 'userEnvProbe', 'updateRemoteUserUID', 'portsAttributes']);

export interface PlanContext {
  /** The devcontainer.json's path inside the folder, posix (".devcontainer/devcontainer.json"). */
  source: string;
  /** The attached folder's name (${localWorkspaceFolderBasename}). */
  folderName: string;
  /** Where the folder is inside the container (${containerWorkspaceFolder}). */
  containerFolder: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The spec's variables Berth can answer; ${localEnv:…} is this computer's and never reaches a sandbox. */
export function substitute(value: string, ctx: PlanContext, containerEnv: Record<string, string> = {}): string {
  return value.replace(/\$\{([^}:]+)(?::([^}]*))?\}/g, (whole, name: string, arg: string | undefined) => {
    switch (name) {
      case 'localWorkspaceFolderBasename':
      case 'containerWorkspaceFolderBasename':
        return ctx.folderName;
      case 'containerWorkspaceFolder':
        return ctx.containerFolder;
      case 'containerEnv':
        return arg !== undefined && arg in containerEnv ? (containerEnv[arg] as string) : '';
      case 'localEnv':
      case 'localWorkspaceFolder':
        return '';
      default:
        return whole;
    }
  });
}

function stringMap(v: unknown, key: string, problems: string[], ctx: PlanContext, env: Record<string, string> = {}): Record<string, string> {
  if (v === undefined) return {};
  if (!isRecord(v)) {
    problems.push(`"${key}" must be an object of names and values.`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(v)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      problems.push(`"${key}" names "${name}", which is not a variable name.`);
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      out[name] = substitute(String(value), ctx, env);
    } else if (value !== null) {
      problems.push(`"${key}.${name}" must be a string.`);
    }
  }
  return out;
}

function lifecycle(v: unknown, key: string, problems: string[]): LifecycleCommand | null {
  if (v === undefined || v === null) return null;
  const argv = (x: unknown) => Array.isArray(x) && x.length > 0 && x.every((a) => typeof a === 'string');
  if (typeof v === 'string') return v.trim() ? v : null;
  if (argv(v)) return v as string[];
  if (isRecord(v)) {
    const out: Record<string, string | string[]> = {};
    for (const [name, c] of Object.entries(v)) {
      if (typeof c === 'string' || argv(c)) out[name] = c as string | string[];
      else problems.push(`"${key}.${name}" must be a command: a string or an array of strings.`);
    }
    return Object.keys(out).length ? out : null;
  }
  problems.push(`"${key}" must be a string, an array of strings or an object of named commands.`);
  return null;
}

/** A path the file names, relative to its own folder, as a path inside the attached folder; null when it leaves it. */
function inside(base: string, rel: string): string | null {
  const joined = path.posix.normalize(path.posix.join(base, rel.replace(/\\/g, '/')));
  if (path.posix.isAbsolute(rel) || joined === '..' || joined.startsWith('../')) return null;
  return joined === '' ? '.' : joined;
}

/** Whether a user value names root: the name, uid 0, or a group of 0. */
export function namesRoot(user: string): boolean {
  const [u = '', g] = user.trim().split(':');
  return u === 'root' || u === '0' || g === 'root' || g === '0';
}

function ports(v: unknown, attributes: unknown, problems: string[]): EnvironmentPlan['forwardPorts'] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    problems.push('"forwardPorts" must be an array of ports.');
    return [];
  }
  const attrs = isRecord(attributes) ? attributes : {};
  const out: EnvironmentPlan['forwardPorts'] = [];
  for (const p of v) {
    // "host:port" names another service of a Compose file: only ports of the sandbox itself.
    const n = typeof p === 'number' ? p : typeof p === 'string' && /^\d+$/.test(p) ? Number(p) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > 65535) {
      problems.push(`"forwardPorts" holds ${JSON.stringify(p)}, which is not a port of this container (1-65535).`);
      continue;
    }
    if (out.some((o) => o.port === n)) continue;
    const a = attrs[String(n)];
    const label = isRecord(a) && typeof a.label === 'string' && a.label.trim() ? a.label.trim().slice(0, 80) : null;
    out.push({ port: n, label });
  }
  return out;
}

export function planEnvironment(raw: unknown, ctx: PlanContext): PlanResult {
  if (!isRecord(raw)) return { ok: false, problems: [`${ctx.source} does not hold a JSON object.`] };
  const problems: string[] = [];
  const ignored: EnvironmentPlan['ignored'] = [];
  for (const [key, reason] of Object.entries(NEVER_HONOURED)) {
    if (key in raw && raw[key] !== false && raw[key] !== null) ignored.push({ key, reason });
  }
  if (isRecord(raw.features) && Object.keys(raw.features).length > 0) {
    problems.push(
      `"features" (${Object.keys(raw.features).join(', ')}) cannot be used: Berth does not install Dev Container Features, which are downloaded from a registry and run as root at build time. Put what they install in the Dockerfile instead (build.dockerfile), or remove "features".`,
    );
  }
  const dir = path.posix.dirname(ctx.source);
  let image: string | null = null;
  let build: EnvironmentPlan['build'] = null;
  const b = raw.build;
  const dockerfileKey = isRecord(b) && typeof b.dockerfile === 'string' ? b.dockerfile : typeof raw.dockerFile === 'string' ? raw.dockerFile : null;
  if (dockerfileKey !== null) {
    const bb = isRecord(b) ? b : {};
    const contextRel = typeof bb.context === 'string' ? bb.context : typeof raw.context === 'string' ? raw.context : '.';
    const context = inside(dir, contextRel);
    const dockerfile = inside(dir, dockerfileKey);
    if (context === null) problems.push(`"build.context" (${contextRel}) leaves the attached folder; Berth sends only the folder's own files to the build.`);
    if (dockerfile === null) problems.push(`"build.dockerfile" (${dockerfileKey}) leaves the attached folder.`);
    const target = typeof bb.target === 'string' && bb.target.trim() ? bb.target.trim() : null;
    const args = stringMap(bb.args, 'build.args', problems, ctx);
    if (context !== null && dockerfile !== null) build = { dockerfile, context, args, target };
  } else if (typeof raw.image === 'string' && raw.image.trim()) {
    image = raw.image.trim();
  } else if (!('dockerComposeFile' in raw)) {
    problems.push(`${ctx.source} names neither "image" nor "build.dockerfile", so there is nothing to start the sandbox from.`);
  } else {
    problems.push(`${ctx.source} describes a Docker Compose setup, which Berth does not run (${NEVER_HONOURED.dockerComposeFile}). Give it an "image" or "build.dockerfile" for Berth.`);
  }
  const containerEnv = stringMap(raw.containerEnv, 'containerEnv', problems, ctx);
  const remoteEnv = stringMap(raw.remoteEnv, 'remoteEnv', problems, ctx, containerEnv);
  let user: string | null = null;
  for (const key of ['containerUser', 'remoteUser'] as const) {
    const v = raw[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || !v.trim()) {
      problems.push(`"${key}" must be a user name or uid.`);
    } else if (namesRoot(v)) {
      problems.push(`"${key}" is ${JSON.stringify(v)}: Berth never runs a sandbox as root (uid 0 or group 0), because root in a container is one escape away from root on the engine's computer. Name a non-root user of the image, or remove "${key}".`);
    } else {
      // remoteUser is who runs the tools; it wins over containerUser, as in the spec.
      user = v.trim();
    }
  }
  const commands = Object.fromEntries(LIFECYCLE_KEYS.map((k) => [k, lifecycle(raw[k], k, problems)])) as EnvironmentPlan['commands'];
  const forwardPorts = ports(raw.forwardPorts, raw.portsAttributes, problems);
  let workspaceFolder: string | null = null;
  if (typeof raw.workspaceFolder === 'string' && raw.workspaceFolder.trim()) {
    const w = path.posix.normalize(substitute(raw.workspaceFolder.trim(), ctx));
    if (path.posix.isAbsolute(w)) workspaceFolder = w;
    else problems.push(`"workspaceFolder" (${raw.workspaceFolder}) must be an absolute path in the container.`);
  }
  for (const key of Object.keys(raw)) {
    const known = key in NEVER_HONOURED || QUIET.has(key) || LIFECYCLE_KEYS.includes(key as LifecycleKey) ||
      ['image', 'build', 'dockerFile', 'context', 'features', 'containerEnv', 'remoteEnv', 'containerUser', 'remoteUser', 'forwardPorts', 'workspaceFolder'].includes(key);
    if (!known) ignored.push({ key, reason: 'Berth does not know this key' });
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, plan: { source: ctx.source, image, build, containerEnv, remoteEnv, user, commands, forwardPorts, workspaceFolder, ignored } };
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

function one(c: string | string[]): string {
  // An array runs as is, with no shell reading its words (the spec's exec form).
  return typeof c === 'string' ? `/bin/sh -c ${quote(c)}` : `exec ${c.map(quote).join(' ')}`;
}

/**
 * One POSIX shell script that runs a lifecycle command in any of its forms and exits non-zero
 * when it (or any of an object's commands, run in parallel) failed. Run in a subshell, so an
 * `exit` in it never ends the sandbox's long-lived shell.
 */
export function lifecycleScript(cmd: LifecycleCommand): string {
  if (typeof cmd === 'string' || Array.isArray(cmd)) return `(${one(cmd)})`;
  const entries = Object.entries(cmd);
  // A pipeline's status is sed's: each command's own status goes to a file, each line is prefixed with its name.
  const parts = entries.map(([name, c], i) => `( (${one(c)}) 2>&1; echo $? > "$d/${i}" ) | sed 's/^/[${name.replace(/[^A-Za-z0-9_.-]/g, '_')}] /' &`);
  const checks = entries.map((_, i) => `[ "$(cat "$d/${i}" 2>/dev/null)" = 0 ] || f=1`).join('; ');
  return `(d=$(mktemp -d); f=0; ${parts.join(' ')} wait; ${checks}; rm -rf "$d"; exit $f)`;
}

/** The images a Dockerfile starts from (its FROM lines, stages it names itself left out, ARG defaults and build args filled in). */
export function dockerfileBases(text: string, args: Record<string, string> = {}): string[] {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const defaults: Record<string, string> = {};
  const stages = new Set<string>();
  const bases: string[] = [];
  let seenFrom = false;
  for (const raw of lines) {
    const line = raw.trim();
    const arg = /^ARG\s+([A-Za-z_][A-Za-z0-9_]*)(?:=(\S*))?/i.exec(line);
    if (arg && !seenFrom) {
      const name = arg[1] as string;
      defaults[name] = args[name] ?? (arg[2] ?? '').replace(/^["']|["']$/g, '');
      continue;
    }
    const from = /^FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (!from) continue;
    seenFrom = true;
    const ref = (from[1] as string).replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_w, n: string) => defaults[n] ?? '');
    if (!stages.has(ref.toLowerCase()) && ref !== 'scratch' && !bases.includes(ref)) bases.push(ref);
    if (from[2]) stages.add(from[2].toLowerCase());
  }
  return bases;
}

/**
 * What a prepared environment is keyed by: the devcontainer.json's text, the build context's
 * files (their digest), the images it starts from (their ids) and who it runs as. The same key
 * means the same result, for any folder.
 */
export function environmentKey(parts: { config: string; contextDigest: string | null; baseImageIds: readonly string[]; user: string }): string {
  return createHash('sha256')
    .update(JSON.stringify(['berth-env-1', parts.config, parts.contextDigest, [...parts.baseImageIds], parts.user]))
    .digest('hex');
}

/** The tag of a prepared environment's image. */
export function preparedTag(key: string): string {
  return `berth-env:${key.slice(0, 20)}`;
}

/** A user of an image, by name or uid, from its /etc/passwd; a bare uid not listed stands as itself. */
export function userInPasswd(passwd: string | null, user: string): { name: string; uid: number; gid: number } | null {
  const [who = '', group] = user.split(':');
  for (const line of (passwd ?? '').split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === undefined || uid === undefined || gid === undefined) continue;
    if (name === who || uid === who) return { name, uid: Number(uid), gid: group !== undefined && /^\d+$/.test(group) ? Number(group) : Number(gid) };
  }
  if (/^\d+$/.test(who)) return { name: who, uid: Number(who), gid: group !== undefined && /^\d+$/.test(group) ? Number(group) : Number(who) };
  return null;
}

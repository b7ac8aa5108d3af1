/**
 * The Engine API body that creates a chat's container. Pure: every hardening decision is
 * here, in one place, and tested without Docker.
 */
import { createHash } from 'node:crypto';
import type { ResourceLimits } from '../../../shared/contract.js';
import type { PlannedMount } from './mountPlan.js';
import { seccompSecurityOpt } from './seccompProfile.js';
import { SHELL_BOOTSTRAP } from './shellProtocol.js';

export const SANDBOX_HOME = '/home/berth';
export const LABEL = {
  app: 'berth.app',
  instance: 'berth.instance',
  profile: 'berth.profile',
  chat: 'berth.chat',
  key: 'berth.key',
  spec: 'berth.spec',
} as const;
export const APP_LABEL_VALUE = 'berth';

export interface EngineMount {
  Type: 'bind';
  Source: string;
  Target: string;
  ReadOnly: boolean;
  BindOptions: { NonRecursive: boolean };
}

export interface ContainerCreateBody {
  name: string;
  Image: string;
  User: string;
  Hostname: string;
  WorkingDir: string;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[];
  Labels: Record<string, string>;
  OpenStdin: true;
  StdinOnce: false;
  AttachStdin: true;
  AttachStdout: true;
  AttachStderr: true;
  Tty: false;
  HostConfig: {
    Dns?: string[];
    DnsOptions?: string[];
    Mounts: EngineMount[];
    CapDrop: string[];
    CapAdd: string[];
    SecurityOpt: string[];
    Privileged: false;
    Init: true;
    Tmpfs: Record<string, string>;
    PidsLimit: number;
    Memory: number;
    MemorySwap: number;
    NanoCpus: number;
    NetworkMode: string;
    IpcMode: 'private';
    PidMode: '';
    RestartPolicy: { Name: 'no' };
    LogConfig: { Type: 'none'; Config: Record<string, string> };
  };
  NetworkingConfig?: { EndpointsConfig: Record<string, object> };
}

export interface ContainerSpecInput {
  name: string;
  image: string;
  user: string;
  instanceId: string;
  profile: string;
  /** The chat that owns the container, or '' for a profile's shared container. */
  chatId: string;
  key: string;
  /** Host folder holding this container's home. */
  homeSource: string;
  mounts: readonly PlannedMount[];
  limits: ResourceLimits;
  /** 'allowlist': the sandbox's own sealed network, proxy variables set, DNS answering only the proxy's name. */
  network: { mode: 'isolated'; name: string } | { mode: 'allowlist'; name: string; env: string[] } | { mode: 'none' };
  workingDir: string;
  /** The AppArmor profile to pin (appArmorProfileFor), or null/absent where the engine has none. */
  appArmorProfile?: string | null;
  /** A project environment's variables (NAME=value; policy/devcontainer), never over Berth's own. */
  env?: readonly string[];
}

/** Variables a project environment cannot set: the home, Berth's marks and the egress proxy's. */
const BERTH_ENV = new Set(['HOME', 'BERTH_SANDBOX', 'BERTH_EGRESS', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy']);

function containerEnv(input: ContainerSpecInput): string[] {
  const proxy = input.network.mode === 'allowlist' ? input.network.env : [];
  const base = [`HOME=${SANDBOX_HOME}`, 'USER=sandbox', 'LANG=C.UTF-8', 'BERTH_SANDBOX=1'];
  if (!input.env?.length) return [...base, ...proxy];
  const named = new Map(base.map((e) => [e.slice(0, e.indexOf('=')), e]));
  for (const e of input.env) {
    const name = e.slice(0, e.indexOf('='));
    if (name && !BERTH_ENV.has(name)) named.set(name, e);
  }
  // A prepared image keeps the variables of the container it was saved from (an allowlist
  // proxy's among them): an environment's container always sets them, empty when not allowlisted.
  const proxyNames = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'BERTH_EGRESS'];
  const cleared = proxy.length ? [] : proxyNames.map((n) => `${n}=`);
  return [...named.values(), ...proxy, ...cleared];
}

/** Docker's own profile, the one a sandbox runs under where the engine has AppArmor. */
export const APPARMOR_PROFILE = 'docker-default';

/**
 * The AppArmor profile to pin, from the engine's security options: pinned by name, so a
 * container is never created unconfined on an engine with AppArmor; none where it has none.
 */
export function appArmorProfileFor(engineSecurityOptions: readonly string[]): string | null {
  return engineSecurityOptions.some((o) => /^name=apparmor(,|$)/.test(o)) ? APPARMOR_PROFILE : null;
}

function toEngineMount(source: string, target: string, readOnly: boolean): EngineMount {
  return { Type: 'bind', Source: source, Target: target, ReadOnly: readOnly, BindOptions: { NonRecursive: true } };
}

/** A fingerprint of what a container was created with; a change means it must be recreated. */
export function specFingerprint(input: ContainerSpecInput): string {
  const relevant = {
    image: input.image,
    user: input.user,
    home: input.homeSource,
    mounts: input.mounts.map((m) => [m.source, m.target, m.readOnly]),
    limits: input.limits,
    network: input.network,
    // Only when pinned, so containers on engines without AppArmor keep their fingerprint.
    ...(input.appArmorProfile ? { appArmor: input.appArmorProfile } : {}),
    ...(input.env?.length ? { env: input.env } : {}),
    // 2: the seccomp profile; containers made before it are recreated with it.
    v: 2,
  };
  return createHash('sha256').update(JSON.stringify(relevant)).digest('hex').slice(0, 16);
}

export function buildContainerSpec(input: ContainerSpecInput): ContainerCreateBody {
  const networkMode = input.network.mode === 'none' ? 'none' : input.network.name;
  const body: ContainerCreateBody = {
    name: input.name,
    Image: input.image,
    User: input.user,
    Hostname: 'sandbox',
    WorkingDir: input.workingDir,
    Env: containerEnv(input),
    Entrypoint: ['/bin/sh', '-c'],
    Cmd: [SHELL_BOOTSTRAP],
    Labels: {
      [LABEL.app]: APP_LABEL_VALUE,
      [LABEL.instance]: input.instanceId,
      [LABEL.profile]: input.profile,
      [LABEL.chat]: input.chatId,
      [LABEL.key]: input.key,
      [LABEL.spec]: specFingerprint(input),
    },
    OpenStdin: true,
    StdinOnce: false,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    HostConfig: {
      Mounts: [
        toEngineMount(input.homeSource, SANDBOX_HOME, false),
        ...input.mounts.map((m) => toEngineMount(m.source, m.target, m.readOnly)),
      ],
      CapDrop: ['ALL'],
      CapAdd: [],
      // Docker's default seccomp rules plus: no set-uid or set-gid files (policy/seccompProfile.ts).
      SecurityOpt: ['no-new-privileges:true', seccompSecurityOpt(), ...(input.appArmorProfile ? [`apparmor=${input.appArmorProfile}`] : [])],
      Privileged: false,
      Init: true,
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=1g,mode=1777' },
      PidsLimit: input.limits.pids,
      Memory: input.limits.memoryMb * 1024 * 1024,
      // Equal to Memory: no swap on top of the limit.
      MemorySwap: input.limits.memoryMb * 1024 * 1024,
      NanoCpus: Math.round(input.limits.cpus * 1e9),
      NetworkMode: networkMode,
      IpcMode: 'private',
      PidMode: '',
      RestartPolicy: { Name: 'no' },
      // Command output stays between the sandbox and Berth; the engine keeps no copy on disk.
      LogConfig: { Type: 'none', Config: {} },
    },
  };
  if (input.network.mode !== 'none') body.NetworkingConfig = { EndpointsConfig: { [input.network.name]: {} } };
  // Docker's resolver in the container still answers the proxy's name; every other name it
  // forwards to 127.0.0.1 inside the sandbox (measured: not the host's), where nothing answers,
  // so DNS cannot carry data out; one short try makes such a lookup fail in about 2 s, not 20.
  if (input.network.mode === 'allowlist') {
    body.HostConfig.Dns = ['127.0.0.1'];
    body.HostConfig.DnsOptions = ['timeout:1', 'attempts:1'];
  }
  return body;
}

/** The Engine interface (everything of Docker that Berth uses) and the shapes it answers with. */
import type { EnvironmentImageOps } from './environmentImages.js';
import type { PassThrough, Writable } from 'node:stream';
import type { ContainerCreateBody } from '../policy/containerSpec.js';
import type { SubnetPool } from '../policy/subnets.js';
import type { EngineKind } from './engineKind.js';
import type { StatsSample } from './statsSample.js';

export interface ContainerSummary {
  id: string;
  name: string;
  running: boolean;
  labels: Record<string, string>;
}

export interface NetworkSummary {
  name: string;
  labels: Record<string, string>;
  /** Its IPv4 subnets (what its address management holds). */
  subnets: string[];
  /** The IPv4 gateways it reports (none for a subnet made without one: Docker then takes its first host). */
  gateways?: string[];
}

/** A container Berth runs for itself, not a sandbox: read-only root, no capabilities, one network. */
export interface ServiceContainerSpec {
  name: string;
  image: string;
  labels: Record<string, string>;
  user: string;
  entrypoint: string[];
  env: string[];
  /** The network it joins at creation. */
  network: string;
  /** DNS servers it resolves names with (empty: Docker's, i.e. the host's). */
  dns: string[];
  memoryMb: number;
  pids: number;
}

export interface ContainerDetails extends ContainerSummary {
  /** The container's address on each network it is on. */
  addresses: Record<string, string>;
  image: string;
  user: string;
  networkMode: string;
  mounts: { type: string; source: string; target: string; readOnly: boolean }[];
  hostConfig: Record<string, unknown>;
}

export interface AttachedStreams {
  stdin: Writable;
  stdout: PassThrough;
  stderr: PassThrough;
  /** Resolves when the connection to the container's stdio ends (container stopped, engine gone). */
  ended: Promise<void>;
  close(): void;
}

/** An interactive process with a TTY in a container (a terminal). */
export interface TtyProcess {
  /** Raw terminal bytes both ways (a TTY has no stdout/stderr split). */
  stream: NodeJS.ReadWriteStream & { destroy(): void; pause(): void; resume(): void };
  resize(cols: number, rows: number): Promise<void>;
  /** Resolves when the process's stream ends. */
  ended: Promise<void>;
}

export interface TtyOptions {
  cmd: string[];
  user: string;
  env: string[];
  workingDir: string;
  cols: number;
  rows: number;
}

/** A container's stats stream: a reading about once a second until closed or the container stops. */
export interface StatsStream {
  /** Resolves when the stream ends (closed, container stopped or removed, engine gone). */
  ended: Promise<void>;
  close(): void;
}

export interface PullProgress {
  message: string;
  fraction: number | null;
}

export interface BuildRequest {
  contextDir: string;
  files: string[];
  tag: string;
  /** 'none', or a network's name for the RUN steps (a setup command under an 'open' or 'allowlist' profile). */
  networkMode?: string;
  /** The RUN steps' build arguments (the proxy's variables on an allowlist profile's sealed network). */
  buildArgs?: Record<string, string>;
}

export interface Engine {
  readonly endpointLabel: string;
  ping(): Promise<{ version: string; apiVersion: string }>;
  /**
   * Ends the connections the engine keeps (an ssh:// engine's SSH connection, kept-alive
   * sockets), as for an engine only checked once; a later call connects again.
   */
  close(): void;
  /**
   * Which engine this is: Docker, or Podman (rootful or rootless) behind its Docker-compatible
   * API. Asked once; the shared paths take Podman's own way where its hardening differs.
   */
  kind(): Promise<EngineKind>;
  /** The engine's security options (`docker info`), such as `name=apparmor` where it has AppArmor. */
  securityOptions(): Promise<string[]>;
  hasImage(ref: string): Promise<boolean>;
  /** The image's id (sha256:…), or null when the engine does not have it. */
  imageId(ref: string): Promise<string | null>;
  pullImage(ref: string, onProgress: (p: PullProgress) => void): Promise<void>;
  /**
   * Builds an image through the Engine API from a folder holding a Dockerfile and `files`;
   * `networkMode: 'none'` for a recipe that needs no network. Each build step is reported.
   */
  buildImage(request: BuildRequest, onProgress: (p: PullProgress) => void): Promise<void>;
  /** The tags of the images on the engine (`repo:tag`), sorted; dangling images left out. */
  listImageTags(): Promise<string[]>;
  /** What the engine's machine has: CPUs and memory (`docker info`'s NCPU and MemTotal). */
  resources(): Promise<{ cpus: number; memoryBytes: number }>;
  /** The engine's OS and CPU architecture, as it names them (linux, amd64). */
  platform(): Promise<{ os: string; arch: string }>;
  /**
   * A profile's bridge with inter-container traffic off. Made now with `pool`, it takes the
   * first subnet of it no network on the engine uses (Podman: its own chat networks, no pool).
   */
  ensureNetwork(name: string, labels: Record<string, string>, pool?: SubnetPool): Promise<void>;
  /**
   * Egress networks (egress/): 'sealed' is a sandbox's own network, internal (no route out) and
   * with no address on the bridge, so neither the internet nor the host is a peer, only the
   * containers on it; 'outside' a plain bridge the proxies reach out through. A network of that
   * name made otherwise is refused (network_failed). A sealed network made now takes the first
   * subnet of `pool` that no network on the engine uses (not one of the daemon's default pools,
   * which run out after ~30 networks); a used-up pool is network_failed.
   */
  ensureEgressNetwork(name: string, labels: Record<string, string>, kind: 'sealed' | 'outside', pool?: SubnetPool): Promise<void>;
  removeNetwork(name: string): Promise<void>;
  /** Networks carrying all these labels. */
  findNetworks(labels: Record<string, string>): Promise<NetworkSummary[]>;
  /** Joins a container to a network under these aliases (already joined: nothing to do). */
  connectNetwork(network: string, containerId: string, aliases: string[]): Promise<void>;
  /** Takes a container off a network (not on it, or gone: nothing to do). */
  disconnectNetwork(network: string, containerId: string): Promise<void>;
  /** Creates a helper container Berth runs for itself (the egress proxy); name taken: 'already_exists'. */
  createServiceContainer(spec: ServiceContainerSpec): Promise<string>;
  /** Calls onLine with each line the container prints (from its start, or from now); stop() ends it. */
  followLogs(id: string, fromStart: boolean, onLine: (line: string, stream: 'stdout' | 'stderr') => void): Promise<{ stop(): void }>;
  findContainers(labels: Record<string, string>): Promise<ContainerSummary[]>;
  inspectContainer(id: string): Promise<ContainerDetails | null>;
  /** Returns the new container's id; a name already taken rejects with code 'already_exists'. */
  createContainer(body: ContainerCreateBody): Promise<string>;
  attach(id: string): Promise<AttachedStreams>;
  startContainer(id: string): Promise<void>;
  stopContainer(id: string, graceSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  /** Runs a short command in a running container and collects its output. */
  execOnce(id: string, cmd: string[], user: string): Promise<{ exitCode: number; output: string }>;
  /** A process in the container with stdin attached and no TTY: its bytes both ways (a port forward's relay). */
  execPipe(id: string, cmd: string[], user: string): Promise<AttachedStreams>;
  /** Starts an interactive process with a TTY in a running container. */
  execTty(id: string, options: TtyOptions): Promise<TtyProcess>;
  /** Streams a running container's use (CPU, memory, processes); a missing container rejects. */
  streamStats(id: string, onSample: (sample: StatsSample) => void): Promise<StatsStream>;
  /** The size of the container's writable layer in bytes (what it wrote outside its mounts); null when gone. */
  writableLayerBytes(id: string): Promise<number | null>;
  /** Creates a named volume; false when it already existed (its content is then kept). */
  ensureVolume(name: string, labels: Record<string, string>): Promise<boolean>;
  /** Whether a volume of that name exists. */
  hasVolume(name: string): Promise<boolean>;
  removeVolume(name: string): Promise<void>;
  /** Removes every volume carrying all these labels. */
  removeVolumes(labels: Record<string, string>): Promise<void>;
  /** Unpacks a tar stream at a path of a container (created or running), volumes included. */
  putArchive(id: string, containerPath: string, tar: NodeJS.ReadableStream): Promise<void>;
  /** A tar stream of a path in a container (created or running), volumes included. */
  getArchive(id: string, containerPath: string): Promise<NodeJS.ReadableStream>;
  /** The image as a `docker save` tar stream (to carry it to another engine without a registry). */
  exportImage(tag: string): Promise<NodeJS.ReadableStream>;
  /** Loads a `docker save` tar stream, as `docker load` does. */
  loadImage(tar: NodeJS.ReadableStream): Promise<void>;
  /** Project environments' builds, commits and images (environmentImages.ts). */
  environmentImages(): EnvironmentImageOps;
}

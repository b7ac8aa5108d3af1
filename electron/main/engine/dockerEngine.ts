/**
 * The only module that talks to Docker. Small on purpose: policy decides, this acts, and
 * tests drive it against a real engine.
 */
import Docker from 'dockerode';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { demuxExec } from './execDemux.js';
import { BerthError } from '../../../shared/errors.js';
import type { EngineEndpoint } from '../policy/engineEndpoint.js';
import type { ContainerCreateBody } from '../policy/containerSpec.js';
import { sshAgent } from './sshTransport.js';
import { pickSubnet, poolCapacity, type SubnetPool } from '../policy/subnets.js';
import { engineMessage, isUnreachable, pullFailed, statusOf, toBerthError, unreachableError } from './engineErrors.js';
import { isPodmanVersion, podmanKind, type EngineKind, type LibpodInfo } from './engineKind.js';
import { ensureIsolatedNetwork, LIBPOD_PREFIX, type LibpodDial } from './podmanNetworks.js';
import { checkPodmanContainer, podmanCannotLimit, STDIN_LABEL, STDIN_WRITER, withSeccompFile, withStdinFifo } from './podmanSandbox.js';
import { statsSample, type RawStats, type StatsSample } from './statsSample.js';
import { unavailableEngine } from './unavailableEngine.js';
import { environmentImageOps, type EnvironmentImageOps } from './environmentImages.js';
import { imageIdOf } from './imageInfo.js';

export type { StatsSample } from './statsSample.js';
export type { EngineKind } from './engineKind.js';

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
  /** 'none', or a network's name for the RUN steps (a setup command under an 'open' profile). */
  networkMode?: string;
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

export interface DockerEngineOptions {
  /**
   * The folder holding ca.pem, cert.pem and key.pem for a TLS tcp endpoint. By default, like
   * the docker command: DOCKER_CERT_PATH, otherwise ~/.docker.
   */
  certPath?: string;
  /**
   * The known_hosts files an ssh:// engine's host key must be listed in; by default, like `ssh`:
   * ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts.
   */
  knownHostsFiles?: string[];
}

const TLS_FILES = ['ca.pem', 'cert.pem', 'key.pem'] as const;

/** The client's TLS material, or the error every call will report when it cannot be read. */
function readTlsFiles(certPath: string, label: string): { ca: Buffer; cert: Buffer; key: Buffer } | BerthError {
  const read: Buffer[] = [];
  const missing: string[] = [];
  let cause: unknown;
  for (const file of TLS_FILES) {
    try {
      read.push(fs.readFileSync(path.join(certPath, file)));
    } catch (error) {
      missing.push(file);
      cause ??= error;
    }
  }
  if (missing.length > 0) {
    return new BerthError(
      'engine_unreachable',
      `The Docker engine at ${label} needs TLS, but Berth cannot read ${missing.join(', ')} in ${certPath}.`,
      {
        hint: 'Put the TLS certificates (ca.pem, cert.pem, key.pem) there, or set DOCKER_CERT_PATH to the folder that holds them, as for the docker command; then start Berth again.',
        cause,
      },
    );
  }
  const [ca, cert, key] = read as [Buffer, Buffer, Buffer];
  return { ca, cert, key };
}

/** TLS files named one by one (a profile's tcp engine, a context's own files). */
function readNamedTlsFiles(files: { ca: string; cert: string; key: string }, label: string): { ca: Buffer; cert: Buffer; key: Buffer } | BerthError {
  try {
    return { ca: fs.readFileSync(files.ca), cert: fs.readFileSync(files.cert), key: fs.readFileSync(files.key) };
  } catch (error) {
    return new BerthError('engine_unreachable', `The Docker engine at ${label} needs TLS, but Berth cannot read its files: ${engineMessage(error)}`, {
      hint: "Check the CA, certificate and key paths in the profile's engine settings.",
      cause: error,
    });
  }
}

function endpointOptions(endpoint: EngineEndpoint, tlsFiles: { ca: Buffer; cert: Buffer; key: Buffer } | null, knownHostsFiles: string[]): Docker.DockerOptions {
  switch (endpoint.kind) {
    case 'socket':
      return { socketPath: endpoint.socketPath };
    case 'tcp':
      return { host: endpoint.host, port: endpoint.port, protocol: endpoint.tls ? 'https' : 'http', ...(tlsFiles ?? {}) };
    case 'ssh':
      return sshOptions(endpoint, knownHostsFiles);
  }
}

/** ssh://user@host:port through ssh2 (docker-modem's SSH transport), with a key file or the agent. */
function sshOptions(endpoint: Extract<EngineEndpoint, { kind: 'ssh' }>, knownHostsFiles: string[]): Docker.DockerOptions {
  const url = new URL(endpoint.host);
  const agent = sshAgent({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 22,
    username: decodeURIComponent(url.username),
    knownHostsFiles,
    ...(endpoint.identityFile
      ? { privateKey: fs.readFileSync(endpoint.identityFile) }
      : process.env.SSH_AUTH_SOCK
        ? { agent: process.env.SSH_AUTH_SOCK }
        : {}),
  });
  // Plain HTTP over the SSH channels: the agent does the transport.
  return { protocol: 'http', host: 'localhost', port: 80, agent } as Docker.DockerOptions;
}

export function describeEndpoint(endpoint: EngineEndpoint): string {
  switch (endpoint.kind) {
    case 'socket':
      return endpoint.socketPath;
    case 'tcp':
      return `${endpoint.tls ? 'https' : 'tcp'}://${endpoint.host}:${endpoint.port}`;
    case 'ssh':
      return endpoint.host.replace(/\/$/, '');
  }
}

/** The TLS folder the docker command would use: DOCKER_CERT_PATH, otherwise ~/.docker. */
function certPathFor(options: DockerEngineOptions): string {
  return options.certPath ?? (process.env.DOCKER_CERT_PATH || path.join(os.homedir(), '.docker'));
}

/**
 * The engine for an endpoint: a DockerEngine, or, when a TLS endpoint's files cannot be read,
 * the unavailable engine whose every call says where they were looked for (the app still opens).
 */
export function createEngine(endpoint: EngineEndpoint, options: DockerEngineOptions = {}): Engine {
  if (endpoint.kind === 'tcp' && endpoint.tls) {
    const read = endpoint.tlsFiles ? readNamedTlsFiles(endpoint.tlsFiles, describeEndpoint(endpoint)) : readTlsFiles(certPathFor(options), describeEndpoint(endpoint));
    if (read instanceof BerthError) return unavailableEngine(read, describeEndpoint(endpoint));
  }
  return new DockerEngine(endpoint, options);
}

/** Why a container could not join its network (create or start): the engine names the network. */
function networkJoinError(error: unknown): BerthError | null {
  if (statusOf(error) !== 404 || !/network/i.test(engineMessage(error))) return null;
  return new BerthError('network_failed', `The sandbox could not join its network: ${engineMessage(error)}`, {
    hint: 'Try again; Berth recreates the network. If it keeps failing, set the profile\'s egress to "none".',
    cause: error,
  });
}

/** Docker's bridge option that leaves the bridge without an address: the host is not a peer on it. */
export const NO_GATEWAY_OPTION = 'com.docker.network.bridge.inhibit_ipv4';

/**
 * Runs `create` with seccomp profiles written as files for Podman (podmanSandbox.ts), each in a
 * folder only this process can write, readable by a rootless Podman's user, and removes them
 * when it is done. Podman reads the file when it creates the container (the profile becomes part
 * of the container's spec and applies at every later start: test/integration/podman.test.ts), so
 * keeping it only left one folder per process in the temp folder for good.
 */
async function withSeccompFiles<T>(create: (fileFor: (profile: string) => string) => Promise<T>): Promise<T> {
  const dirs: string[] = [];
  try {
    return await create((profile) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-seccomp-'));
      dirs.push(dir);
      fs.chmodSync(dir, 0o755);
      const file = path.join(dir, 'profile.json');
      fs.writeFileSync(file, profile, { mode: 0o644 });
      return file;
    });
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What a call makes of an engine error it expects: a result (`{ value }`) or nothing (map it as usual). */
type Expected<T> = (error: unknown) => { value: T } | undefined;

/** Another create of the same name won the race: that network is the one we wanted. */
function lostNameRace(error: unknown): boolean {
  return statusOf(error) === 409 || /already exists/i.test(engineMessage(error));
}

/** What Berth reads of a network's inspect answer to tell whether it made it. */
interface NetworkFacts {
  Driver?: string;
  Internal?: boolean;
  Options?: Record<string, string>;
}

export class DockerEngine implements Engine {
  readonly endpointLabel: string;
  private readonly docker: Docker;
  /** Why this engine cannot be used at all (built directly with TLS files missing; createEngine returns unavailableEngine instead). */
  private readonly unusable: BerthError | null;

  constructor(endpoint: EngineEndpoint, options: DockerEngineOptions = {}) {
    this.endpointLabel = describeEndpoint(endpoint);
    let tlsFiles: { ca: Buffer; cert: Buffer; key: Buffer } | null = null;
    let unusable: BerthError | null = null;
    if (endpoint.kind === 'tcp' && endpoint.tls) {
      // Not thrown here: callers build the engine at start-up and expect its calls to fail.
      const read = endpoint.tlsFiles ? readNamedTlsFiles(endpoint.tlsFiles, this.endpointLabel) : readTlsFiles(certPathFor(options), this.endpointLabel);
      if (read instanceof BerthError) unusable = read;
      else tlsFiles = read;
    }
    let docker: Docker | null = null;
    try {
      docker = new Docker(endpointOptions(endpoint, tlsFiles, options.knownHostsFiles ?? [path.join(os.homedir(), '.ssh', 'known_hosts'), '/etc/ssh/ssh_known_hosts']));
    } catch (error) {
      unusable ??= new BerthError('engine_unreachable', `Berth cannot use the engine at ${this.endpointLabel}: ${engineMessage(error)}`, {
        hint: "Check the engine's address and key file in the profile's settings.",
        cause: error,
      });
    }
    this.unusable = unusable;
    this.docker = docker ?? new Docker({ socketPath: '/nonexistent' });
  }

  close(): void {
    (this.docker.modem as { agent?: { destroy?: () => void } }).agent?.destroy?.();
  }

  /**
   * Every Docker call goes through here, so errors are mapped in one place: an unusable engine
   * fails first; an error the call expects becomes its result (`expected`, which may also throw
   * its own BerthError); anything else becomes a BerthError naming `action` (unreachable
   * engines their own), and raw dockerode errors never leave engine/.
   */
  private async call<T>(action: string, run: (docker: Docker) => Promise<T>, expected?: Expected<T>): Promise<T> {
    if (this.unusable) throw this.unusable;
    try {
      return await run(this.docker);
    } catch (error) {
      const handled = expected?.(error);
      if (handled) return handled.value;
      throw toBerthError(error, action, this.endpointLabel);
    }
  }

  environmentImages(): EnvironmentImageOps { return environmentImageOps((action, run) => this.call(action, run)); }

  async ping(): Promise<{ version: string; apiVersion: string }> {
    const v = await this.call('answer', (docker) => docker.version());
    return { version: v.Version, apiVersion: v.ApiVersion };
  }

  private kindAnswer: Promise<EngineKind> | null = null;

  kind(): Promise<EngineKind> {
    // One question per engine; a failed one (engine down) is asked again next time.
    this.kindAnswer ??= this.call('tell which engine it is', async (docker) => {
      const version = (await docker.version()) as { Components?: { Name?: unknown }[] | null };
      if (!isPodmanVersion(version)) return { name: 'docker' } as const;
      return podmanKind((await this.libpod(docker)('GET', `${LIBPOD_PREFIX}/info`)) as LibpodInfo);
    }).catch((error: unknown) => {
      this.kindAnswer = null;
      throw error;
    });
    return this.kindAnswer;
  }

  /** Podman's own API (libpod), for what its Docker-compatible one does not carry. */
  private libpod(docker: Docker): LibpodDial {
    return (method, path, body) =>
      new Promise((resolve, reject) => {
        docker.modem.dial(
          { path, method, options: body ?? {}, statusCodes: { 200: true, 201: true, 204: true, 400: 'bad request', 404: 'not found', 409: 'conflict', 500: 'server error' } },
          (error: unknown, data: unknown) => (error ? reject(error) : resolve(data)),
        );
      });
  }

  resources(): Promise<{ cpus: number; memoryBytes: number }> {
    return this.call('read what the engine has', async (docker) => {
      const info = (await docker.info()) as { NCPU?: unknown; MemTotal?: unknown };
      return { cpus: typeof info.NCPU === 'number' ? info.NCPU : 0, memoryBytes: typeof info.MemTotal === 'number' ? info.MemTotal : 0 };
    });
  }

  securityOptions(): Promise<string[]> {
    return this.call('read the engine\'s security options', async (docker) => {
      const info = (await docker.info()) as { SecurityOptions?: unknown };
      return Array.isArray(info.SecurityOptions) ? info.SecurityOptions.filter((o): o is string => typeof o === 'string') : [];
    });
  }

  hasImage(ref: string): Promise<boolean> {
    return this.call(
      `look up the image ${ref}`,
      async (docker) => {
        await docker.getImage(ref).inspect();
        return true;
      },
      (error) => (statusOf(error) === 404 ? { value: false } : undefined),
    );
  }

  imageId(ref: string): Promise<string | null> {
    return this.call(`look up the image ${ref}`, (docker) => imageIdOf(docker, ref), (error) => (statusOf(error) === 404 ? { value: null } : undefined));
  }

  pullImage(ref: string, onProgress: (p: PullProgress) => void): Promise<void> {
    const layers = new Map<string, { current: number; total: number }>();
    const pull = async (docker: Docker) => {
      const stream = await docker.pull(ref);
      await new Promise<void>((resolve, reject) => {
        docker.modem.followProgress(
          stream,
          (err: Error | null) => (err ? reject(err) : resolve()),
          (event: { id?: string; status?: string; progressDetail?: { current?: number; total?: number }; error?: string }) => {
            if (event.error) return;
            const layer = event.id ? layers.get(event.id) : undefined;
            if (event.id && event.progressDetail?.total && event.status === 'Downloading') {
              layers.set(event.id, { current: event.progressDetail.current ?? 0, total: event.progressDetail.total });
            } else if (layer && /^(Download complete|Pull complete|Already exists)/.test(event.status ?? '')) {
              layer.current = layer.total;
            }
            let current = 0;
            let total = 0;
            for (const l of layers.values()) {
              current += l.current;
              total += l.total;
            }
            onProgress({ message: `${event.status ?? 'Pulling'}${event.id ? ` ${event.id}` : ''}`, fraction: total ? Math.min(1, current / total) : null });
          },
        );
      });
      onProgress({ message: `Downloaded ${ref}`, fraction: 1 });
    };
    return this.call(`download the image ${ref}`, pull, (error) => {
      if (isUnreachable(error)) return undefined;
      throw pullFailed(ref, error);
    });
  }

  buildImage(request: BuildRequest, onProgress: (p: PullProgress) => void): Promise<void> {
    return this.call(`build the image ${request.tag}`, async (docker) => {
      let failure: string | null = null;
      try {
        const stream = await docker.buildImage(
          { context: request.contextDir, src: ['Dockerfile', ...request.files] },
          { t: request.tag, rm: true, forcerm: true, ...(request.networkMode ? { networkmode: request.networkMode } : {}) },
        );
        await new Promise<void>((resolve, reject) => {
          docker.modem.followProgress(
            stream,
            (err: Error | null) => (err ? reject(err) : resolve()),
            (event: { stream?: string; status?: string; error?: string }) => {
              if (event.error) failure = event.error.trim();
              const line = (event.stream ?? event.status ?? '').trim();
              // "Step 3/6 : RUN …" lines carry the build's own measure of progress.
              const step = /^Step (\d+)\/(\d+) : (.*)$/.exec(line);
              if (step) onProgress({ message: `Step ${step[1]}/${step[2]}: ${(step[3] ?? '').slice(0, 120)}`, fraction: (Number(step[1]) - 1) / Number(step[2]) });
              else if (line && !line.startsWith('--->')) onProgress({ message: line.slice(0, 160), fraction: null });
            },
          );
        });
      } catch (error) {
        if (isUnreachable(error)) throw error;
        failure = engineMessage(error);
      }
      if (failure !== null) {
        throw new BerthError('image_unavailable', `Docker could not build the image ${request.tag}: ${failure}`, {
          hint: 'Check that Docker is healthy (docker info) and try again.',
        });
      }
      onProgress({ message: `Built ${request.tag}`, fraction: 1 });
    });
  }

  listImageTags(): Promise<string[]> {
    return this.call('list images', async (docker) => {
      const images = await docker.listImages();
      const tags = images.flatMap((i) => i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
      return [...new Set(tags)].sort();
    });
  }

  platform(): Promise<{ os: string; arch: string }> {
    return this.call('answer', async (docker) => {
      const v = await docker.version();
      return { os: v.Os, arch: v.Arch };
    });
  }

  private readonly networksInFlight = new Map<string, Promise<void>>();

  /** Concurrent calls for one name share one attempt. */
  ensureNetwork(name: string, labels: Record<string, string>, pool?: SubnetPool): Promise<void> {
    const inFlight = this.networksInFlight.get(name);
    if (inFlight) return inFlight;
    const attempt = this.call(`set up the network ${name}`, (docker) => this.ensureNetworkOnce(docker, name, labels, pool), (error) =>
      this.networkFailed(name, error),
    ).finally(() => this.networksInFlight.delete(name));
    this.networksInFlight.set(name, attempt);
    return attempt;
  }

  /** A failure setting up a network: the engine is unreachable, or the network failed. */
  private networkFailed(name: string, error: unknown): never {
    if (error instanceof BerthError) throw error;
    if (isUnreachable(error)) throw unreachableError(this.endpointLabel, error);
    throw new BerthError('network_failed', `The sandbox network ${name} could not be set up: ${engineMessage(error)}`, {
      hint: `The chat will not start without its network. Check Docker's networking (docker network inspect ${name}), or set the profile's egress to "none".`,
      cause: error,
    });
  }

  private async ensureNetworkOnce(docker: Docker, name: string, labels: Record<string, string>, pool: SubnetPool | undefined): Promise<void> {
    // Podman's bridge cannot turn inter-container traffic off: its chats get an isolated network each (podmanNetworks.ts).
    if ((await this.kind()).name === 'podman') return ensureIsolatedNetwork(this.libpod(docker), name, labels);
    return this.ensureNamedNetwork(docker, name, {
      // A network of that name that Berth did not make isolated would let chats reach each other.
      isBerths: (info) => info.Driver === 'bridge' && info.Options?.['com.docker.network.bridge.enable_icc'] === 'false',
      refusal: new BerthError(
        'network_failed',
        `The Docker network ${name} exists but does not keep chats apart (it is not a bridge with inter-container traffic off), so Berth will not use it.`,
        { hint: `Remove it (docker network rm ${name}) and try again; Berth creates it correctly. Or set the profile's egress to "none".` },
      ),
      // Chats on one profile's network cannot reach each other.
      create: { Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: labels, Options: { 'com.docker.network.bridge.enable_icc': 'false' } },
      ...(pool ? { pool } : {}),
    });
  }

  /**
   * One way to set up a named network for both kinds: an existing one is used only when it is
   * the kind Berth makes (else `refusal`); a missing one is created; a create that lost a race
   * to another Berth is fine; and duplicates a race left behind are reduced to the oldest.
   */
  private async ensureNamedNetwork(
    docker: Docker,
    name: string,
    kind: { isBerths: (info: NetworkFacts) => boolean; refusal: BerthError; create: Docker.NetworkCreateOptions; pool?: SubnetPool },
  ): Promise<void> {
    const failed = (error: unknown): never => this.networkFailed(name, error);
    try {
      const info = (await docker.getNetwork(name).inspect()) as NetworkFacts;
      if (!kind.isBerths(info)) throw kind.refusal;
      return;
    } catch (error) {
      if (error instanceof BerthError) throw error;
      if (statusOf(error) !== 404) failed(error);
    }
    if (kind.pool) {
      if ((await this.createInPool(docker, name, kind.create, kind.pool)) === 'exists') return;
    } else {
      try {
        await docker.createNetwork(kind.create);
      } catch (error) {
        if (lostNameRace(error)) return;
        failed(error);
      }
    }
    await this.dropDuplicateNetworks(docker, name);
  }

  /** Subnets being created by this process right now (not yet in the engine's list). */
  private readonly subnetsInFlight = new Set<string>();

  /**
   * Creates the network on the first subnet of the pool that no network on the engine uses.
   * Another Berth (or anyone) may take that subnet between our listing and our create: the
   * engine refuses the overlap and we take the next free one.
   */
  private async createInPool(docker: Docker, name: string, create: Docker.NetworkCreateOptions, pool: SubnetPool): Promise<'created' | 'exists'> {
    const lost = new Set<string>();
    for (let attempt = 0; attempt < 20; attempt++) {
      let taken: string[] = [];
      try {
        taken = (await docker.listNetworks()).flatMap((n) => (n.IPAM?.Config ?? []).map((c) => c.Subnet ?? ''));
      } catch (error) {
        this.networkFailed(name, error);
      }
      const subnet = pickSubnet(pool, [...taken, ...this.subnetsInFlight, ...lost]);
      if (!subnet) {
        throw new BerthError(
          'network_failed',
          `The sandbox network ${name} could not be made: Berth's address range for sandbox networks (${pool.range}, ${poolCapacity(pool)} networks of /${pool.prefix}) is used up.`,
          {
            hint: 'Each allowlist chat whose sandbox exists holds a /28 of it and each open profile a /22: stop or delete chats you no longer need, remove other networks in that range (docker network ls), or give Berth another range with BERTH_EGRESS_POOL (e.g. 10.214.0.0/16) and restart it.',
          },
        );
      }
      this.subnetsInFlight.add(subnet);
      try {
        await docker.createNetwork({ ...create, IPAM: { Driver: 'default', Config: [{ Subnet: subnet }] } });
        return 'created';
      } catch (error) {
        if (lostNameRace(error)) return 'exists';
        if (!/overlaps/i.test(engineMessage(error))) this.networkFailed(name, error);
        lost.add(subnet);
      } finally {
        this.subnetsInFlight.delete(subnet);
      }
    }
    throw new BerthError('network_failed', `The sandbox network ${name} could not be made: every free subnet Berth tried was taken by another network at the same moment.`, {
      hint: 'Try again; if it keeps failing, check which programs create Docker networks (docker network ls).',
    });
  }

  /**
   * The engine's duplicate check is best effort: two processes creating one name at once can
   * both succeed. Every racer keeps the oldest and removes the rest, so all agree on one.
   */
  private async dropDuplicateNetworks(docker: Docker, name: string): Promise<void> {
    let same: Docker.NetworkInspectInfo[];
    try {
      same = (await docker.listNetworks({ filters: { name: [name] } })).filter((n) => n.Name === name);
    } catch (error) {
      this.networkFailed(name, error);
    }
    if (same.length < 2) return;
    same.sort((a, b) => (a.Created ?? '').localeCompare(b.Created ?? '') || a.Id.localeCompare(b.Id));
    for (const extra of same.slice(1)) {
      await docker.getNetwork(extra.Id).remove().catch(() => undefined);
    }
  }

  removeNetwork(name: string): Promise<void> {
    return this.call(
      `remove the network ${name}`,
      async (docker) => void (await docker.getNetwork(name).remove()),
      (error) => (statusOf(error) === 404 ? { value: undefined } : undefined),
    );
  }

  ensureEgressNetwork(name: string, labels: Record<string, string>, kind: 'sealed' | 'outside', pool?: SubnetPool): Promise<void> {
    const sealed = kind === 'sealed';
    return this.call(
      `set up the network ${name}`,
      (docker) =>
        this.ensureNamedNetwork(docker, name, {
          isBerths: (info) => info.Driver === 'bridge' && (!sealed || (info.Internal === true && info.Options?.[NO_GATEWAY_OPTION] === 'true')),
          refusal: new BerthError(
            'network_failed',
            `The Docker network ${name} exists but is not ${sealed ? 'sealed the way Berth makes it (internal, no gateway address)' : 'a bridge'}, so Berth will not use it.`,
            { hint: `Remove it (docker network rm ${name}) and try again; Berth creates it correctly.` },
          ),
          create: { Name: name, Driver: 'bridge', CheckDuplicate: true, Internal: sealed, Labels: labels, Options: sealed ? { [NO_GATEWAY_OPTION]: 'true' } : {} },
          ...(sealed && pool ? { pool } : {}),
        }),
      (error) => this.networkFailed(name, error),
    );
  }

  async findNetworks(labels: Record<string, string>): Promise<NetworkSummary[]> {
    const list = await this.call('list networks', (docker) =>
      docker.listNetworks({ filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } }),
    );
    const ipv4 = (n: Docker.NetworkInspectInfo, field: 'Subnet' | 'Gateway') => (n.IPAM?.Config ?? []).map((c) => c[field] ?? '').filter((x) => x.includes('.'));
    return list.map((n) => ({ name: n.Name, labels: n.Labels ?? {}, subnets: ipv4(n, 'Subnet'), gateways: ipv4(n, 'Gateway') }));
  }

  connectNetwork(network: string, containerId: string, aliases: string[]): Promise<void> {
    return this.call(
      `connect a container to ${network}`,
      async (docker) => void (await docker.getNetwork(network).connect({ Container: containerId, EndpointConfig: { Aliases: aliases } })),
      (error) => {
        // Already connected: what we wanted.
        if (statusOf(error) === 403 && /already exists|already attached/i.test(engineMessage(error))) return { value: undefined };
        if (isUnreachable(error)) return undefined;
        throw new BerthError('network_failed', `Berth could not connect a container to the network ${network}: ${engineMessage(error)}`, {
          hint: "The chat does not start without its network policy. Check Docker's networking (docker network ls), or set the profile's egress to \"none\".",
          cause: error,
        });
      },
    );
  }

  disconnectNetwork(network: string, containerId: string): Promise<void> {
    return this.call(
      `disconnect a container from ${network}`,
      async (docker) => void (await docker.getNetwork(network).disconnect({ Container: containerId, Force: true })),
      (error) => (statusOf(error) === 404 || /is not connected/i.test(engineMessage(error)) ? { value: undefined } : undefined),
    );
  }

  createServiceContainer(spec: ServiceContainerSpec): Promise<string> {
    return this.call(
      `create the container ${spec.name}`,
      async (docker) =>
        (
          await docker.createContainer({
            name: spec.name,
            Image: spec.image,
            User: spec.user,
            Entrypoint: spec.entrypoint,
            Cmd: [],
            Env: spec.env,
            Labels: spec.labels,
            HostConfig: {
              NetworkMode: spec.network,
              Dns: spec.dns,
              // squid will not run as pid 1 (it signals itself through its pid file on reconfigure).
              Init: true,
              CapDrop: ['ALL'],
              SecurityOpt: ['no-new-privileges:true'],
              ReadonlyRootfs: true,
              Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=64m,mode=1777' },
              Memory: spec.memoryMb * 1024 * 1024,
              PidsLimit: spec.pids,
              RestartPolicy: { Name: 'no' },
              LogConfig: { Type: 'json-file', Config: { 'max-size': '5m', 'max-file': '1' } },
            },
          })
        ).id,
      (error) => {
        if (statusOf(error) === 409) throw new BerthError('already_exists', `A container named ${spec.name} already exists.`, { cause: error });
        if (statusOf(error) === 404 && /image/i.test(engineMessage(error))) {
          throw new BerthError('image_unavailable', `The image ${spec.image} is not on this computer.`, { hint: 'Berth builds it when it is first needed; try again.', cause: error });
        }
        return undefined;
      },
    );
  }

  followLogs(id: string, fromStart: boolean, onLine: (line: string, stream: 'stdout' | 'stderr') => void): Promise<{ stop(): void }> {
    return this.call("follow a container's log", async (docker) => {
      const stream = (await docker.getContainer(id).logs({
        follow: true, stdout: true, stderr: true, ...(fromStart ? {} : { since: Math.floor(Date.now() / 1000) }),
      })) as unknown as NodeJS.ReadableStream & { destroy(): void };
      const split = (name: 'stdout' | 'stderr'): PassThrough => {
        const out = new PassThrough();
        let rest = '';
        out.on('data', (chunk: Buffer) => {
          const lines = (rest + chunk.toString('utf8')).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) onLine(line, name);
        });
        return out;
      };
      docker.modem.demuxStream(stream, split('stdout'), split('stderr'));
      stream.on('error', () => undefined);
      return { stop: () => stream.destroy() };
    });
  }

  async findContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    const list = await this.call('list containers', (docker) =>
      docker.listContainers({ all: true, filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } }),
    );
    return list.map((c) => ({
      id: c.Id,
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      running: c.State === 'running',
      labels: c.Labels ?? {},
    }));
  }

  async inspectContainer(id: string): Promise<ContainerDetails | null> {
    const info = await this.call(
      'inspect a container',
      (docker) => docker.getContainer(id).inspect(),
      (error) => (statusOf(error) === 404 ? { value: null } : undefined),
    );
    if (!info) return null;
    return {
        id: info.Id,
        name: info.Name.replace(/^\//, ''),
        running: info.State.Running,
        labels: info.Config.Labels ?? {},
        image: info.Config.Image,
        user: info.Config.User,
        networkMode: info.HostConfig.NetworkMode ?? '',
        addresses: Object.fromEntries(Object.entries(info.NetworkSettings?.Networks ?? {}).map(([n, v]) => [n, v.IPAddress]).filter(([, ip]) => ip)),
        mounts: (info.Mounts ?? []).map((m) => ({ type: m.Type, source: m.Source, target: m.Destination, readOnly: !m.RW })),
        hostConfig: info.HostConfig as unknown as Record<string, unknown>,
      };
  }

  createContainer(body: ContainerCreateBody): Promise<string> {
    return this.call(
      'create the sandbox container',
      async (docker) => {
        const kind = await this.kind();
        // A Podman that cannot enforce the limits would drop them silently: refuse before creating.
        const cannot = podmanCannotLimit(kind);
        if (cannot) throw cannot;
        const id =
          kind.name === 'podman'
            ? await withSeccompFiles(async (fileFor) => (await docker.createContainer(withStdinFifo(withSeccompFile(body, fileFor)) as unknown as Docker.ContainerCreateOptions)).id)
            : (await docker.createContainer(body as unknown as Docker.ContainerCreateOptions)).id;
        if (kind.name === 'podman') {
          // What Podman made, not what was asked: a dropped setting removes the container.
          const refused = checkPodmanContainer(body, (await docker.getContainer(id).inspect()).HostConfig as unknown as Record<string, unknown>);
          if (refused) {
            await docker.getContainer(id).remove({ force: true }).catch(() => undefined);
            throw refused;
          }
        }
        return id;
      },
      (error) => {
        if (statusOf(error) === 409) throw new BerthError('already_exists', `A container named ${body.name} already exists.`, { cause: error });
        const network = networkJoinError(error);
        if (network) throw network;
        return undefined;
      },
    );
  }

  attach(id: string): Promise<AttachedStreams> {
    return this.call('attach to the sandbox', async (docker) => {
      // A Podman sandbox's shell reads a FIFO, not stdin (podmanSandbox.ts: withStdinFifo).
      if ((await this.kind()).name === 'podman' && (await docker.getContainer(id).inspect()).Config.Labels?.[STDIN_LABEL] === 'fifo') {
        return this.attachThroughFifo(docker, id);
      }
      const stream = (await docker.getContainer(id).attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as NodeJS.ReadWriteStream & { destroy(): void; end(): void };
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      docker.modem.demuxStream(stream, stdout, stderr);
      const ended = new Promise<void>((resolve) => {
        const done = () => resolve();
        stream.on('end', done);
        stream.on('close', done);
        stream.on('error', done);
      });
      return {
        stdin: stream as unknown as Writable,
        stdout,
        stderr,
        ended,
        close: () => stream.destroy(),
      };
    });
  }

  /**
   * Podman: the container's output through an attach without stdin (so Podman has no stdin to
   * close), and the input through an exec writing into the shell's FIFO, opened at the first
   * write (by then the container runs: the shell session writes only after the start). Either
   * stream ending ends the attachment.
   */
  private async attachThroughFifo(docker: Docker, id: string): Promise<AttachedStreams> {
    const output = (await docker.getContainer(id).attach({ stream: true, stdin: false, stdout: true, stderr: true, hijack: true })) as unknown as NodeJS.ReadableStream & { destroy(): void };
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    docker.modem.demuxStream(output, stdout, stderr);
    let end = (): void => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    for (const event of ['end', 'close', 'error']) output.on(event, () => end());
    let closed = false;
    let writer: Promise<NodeJS.ReadWriteStream & { destroy(): void }> | null = null;
    const openWriter = async () => {
      const exec = await docker.getContainer(id).exec({ Cmd: STDIN_WRITER, AttachStdin: true, AttachStdout: true, AttachStderr: true });
      const stream = (await exec.start({ hijack: true, stdin: true })) as NodeJS.ReadWriteStream & { destroy(): void };
      // The writer says why it could not run (no mkfifo in the image) on its own output.
      docker.modem.demuxStream(stream, stderr, stderr);
      for (const event of ['end', 'close', 'error']) stream.on(event, () => end());
      if (closed) stream.destroy();
      return stream;
    };
    const stdin = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        writer ??= openWriter();
        writer.then((stream) => (stream.write(chunk), done()), (error: unknown) => done(error as Error));
      },
    });
    stdin.on('error', () => end());
    return {
      stdin,
      stdout,
      stderr,
      ended,
      close: () => {
        closed = true;
        output.destroy();
        void writer?.then((stream) => stream.destroy(), () => undefined);
      },
    };
  }

  startContainer(id: string): Promise<void> {
    return this.call(
      'start the sandbox container',
      async (docker) => void (await docker.getContainer(id).start()),
      (error) => {
        if (statusOf(error) === 304) return { value: undefined };
        const network = networkJoinError(error);
        if (network) throw network;
        return undefined;
      },
    );
  }

  stopContainer(id: string, graceSeconds: number): Promise<void> {
    return this.call(
      'stop the sandbox container',
      async (docker) => void (await docker.getContainer(id).stop({ t: graceSeconds })),
      (error) => (statusOf(error) === 304 || statusOf(error) === 404 ? { value: undefined } : undefined),
    );
  }

  removeContainer(id: string): Promise<void> {
    return this.call(
      'remove the sandbox container',
      async (docker) => void (await docker.getContainer(id).remove({ force: true, v: true })),
      // Gone already, or already being removed by a concurrent call.
      (error) =>
        statusOf(error) === 404 || (statusOf(error) === 409 && /already in progress/i.test(engineMessage(error))) ? { value: undefined } : undefined,
    );
  }

  execOnce(id: string, cmd: string[], user: string): Promise<{ exitCode: number; output: string }> {
    return this.call('run a command in the sandbox', async (docker) => {
      const exec = await docker.getContainer(id).exec({ Cmd: cmd, User: user, AttachStdout: true, AttachStderr: true });
      const stream = await exec.start({ hijack: true, stdin: false });
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      docker.modem.demuxStream(stream, out, out);
      await new Promise<void>((resolve) => {
        stream.on('end', resolve);
        stream.on('close', resolve);
        stream.on('error', resolve);
      });
      const info = await exec.inspect();
      return { exitCode: info.ExitCode ?? -1, output: Buffer.concat(chunks).toString('utf8') };
    });
  }

  execPipe(id: string, cmd: string[], user: string): Promise<AttachedStreams> {
    return this.call('relay a port of the sandbox', async (docker) => {
      const exec = await docker.getContainer(id).exec({ Cmd: cmd, User: user, AttachStdin: true, AttachStdout: true, AttachStderr: true });
      const stream = (await exec.start({ hijack: true, stdin: true })) as NodeJS.ReadWriteStream & { destroy(): void };
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      demuxExec(stream as unknown as Readable, stdout, stderr);
      const ended = new Promise<void>((resolve) => {
        for (const event of ['end', 'close', 'error']) stream.on(event, () => resolve());
      });
      // The demultiplexer never ends its outputs: the relay's end is the stream's.
      void ended.then(() => (stdout.end(), stderr.end()));
      return { stdin: stream as unknown as Writable, stdout, stderr, ended, close: () => stream.destroy() };
    });
  }

  execTty(id: string, options: TtyOptions): Promise<TtyProcess> {
    return this.call('open a terminal in the sandbox', async (docker) => {
      const exec = await docker.getContainer(id).exec({
        Cmd: options.cmd,
        User: options.user,
        Env: options.env,
        WorkingDir: options.workingDir,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: true,
      });
      const stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as TtyProcess['stream'];
      const ended = new Promise<void>((resolve) => {
        stream.on('end', () => resolve());
        stream.on('close', () => resolve());
        stream.on('error', () => resolve());
      });
      const resize = async (cols: number, rows: number) => {
        try {
          await exec.resize({ w: cols, h: rows });
        } catch {
          // The process may have just exited; a resize then has nothing to do.
        }
      };
      await resize(options.cols, options.rows);
      return { stream, resize, ended };
    });
  }

  streamStats(id: string, onSample: (sample: StatsSample) => void): Promise<StatsStream> {
    return this.call(
      'read the sandbox\'s use',
      async (docker) => {
        const stream = (await docker.getContainer(id).stats({ stream: true })) as unknown as NodeJS.ReadableStream & { destroy(): void };
        // Newline-delimited JSON, one object a reading; a chunk may hold part of one.
        let buffered = '';
        stream.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          let nl: number;
          while ((nl = buffered.indexOf('\n')) !== -1) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line === '') continue;
            try {
              onSample(statsSample(JSON.parse(line) as RawStats, Date.now()));
            } catch {
              // A reading the engine garbled is skipped; the next one follows within a second.
            }
          }
        });
        const ended = new Promise<void>((resolve) => {
          stream.on('end', () => resolve());
          stream.on('close', () => resolve());
          stream.on('error', () => resolve());
        });
        return { ended, close: () => stream.destroy() };
      },
      (error) => {
        if (statusOf(error) === 404) throw new BerthError('container_vanished', 'The sandbox is not there any more, so there is nothing to measure.', { hint: 'Run a command or open a terminal: Berth starts a new one.', cause: error });
        return undefined;
      },
    );
  }

  writableLayerBytes(id: string): Promise<number | null> {
    return this.call(
      'measure the sandbox',
      async (docker) => {
        const info = (await docker.getContainer(id).inspect({ size: true } as Docker.ContainerInspectOptions)) as { SizeRw?: number };
        return typeof info.SizeRw === 'number' ? info.SizeRw : 0;
      },
      (error) => (statusOf(error) === 404 ? { value: null } : undefined),
    );
  }

  ensureVolume(name: string, labels: Record<string, string>): Promise<boolean> {
    return this.call(`create the volume ${name}`, async (docker) => {
      try {
        await docker.getVolume(name).inspect();
        return false;
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
      await docker.createVolume({ Name: name, Labels: labels });
      return true;
    });
  }

  removeVolume(name: string): Promise<void> {
    return this.call(
      `remove the volume ${name}`,
      async (docker) => {
        await docker.getVolume(name).remove();
      },
      (error) => (statusOf(error) === 404 ? { value: undefined } : undefined),
    );
  }

  async removeVolumes(labels: Record<string, string>): Promise<void> {
    const names = await this.call('list the sandbox volumes', async (docker) => {
      const list = await docker.listVolumes({ filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } });
      return (list.Volumes ?? []).map((v) => v.Name);
    });
    for (const name of names) await this.removeVolume(name);
  }

  putArchive(id: string, containerPath: string, tar: NodeJS.ReadableStream): Promise<void> {
    return this.call(`copy files into the sandbox at ${containerPath}`, async (docker) => {
      await docker.getContainer(id).putArchive(tar, { path: containerPath });
    });
  }

  getArchive(id: string, containerPath: string): Promise<NodeJS.ReadableStream> {
    return this.call(`copy files out of the sandbox at ${containerPath}`, (docker) => docker.getContainer(id).getArchive({ path: containerPath }));
  }

  exportImage(tag: string): Promise<NodeJS.ReadableStream> {
    return this.call(`export the image ${tag}`, (docker) => docker.getImage(tag).get(), (error) => {
      if (statusOf(error) !== 404) return undefined;
      throw new BerthError('image_unavailable', `Docker could not export the image ${tag}: ${engineMessage(error)}`, { hint: 'Check the image name and try again.' });
    });
  }

  loadImage(tar: NodeJS.ReadableStream): Promise<void> {
    return this.call('load an image', async (docker) => {
      const answer = await docker.loadImage(tar, { quiet: true });
      // The engine streams its progress; a failed load is an error line in it.
      const text = await new Promise<string>((resolve, reject) => {
        let out = '';
        answer.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
        answer.on('end', () => resolve(out));
        answer.on('error', reject);
      });
      const failure = /"error(?:Detail)?"\s*:\s*"([^"]+)"/.exec(text);
      if (failure) throw new Error(failure[1]);
    });
  }
}

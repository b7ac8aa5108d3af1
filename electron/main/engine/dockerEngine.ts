/**
 * The only module that talks to Docker. Small on purpose: policy decides, this acts, and
 * tests drive it against a real engine.
 */
import Docker from 'dockerode';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { BerthError } from '../../../shared/errors.js';
import type { EngineEndpoint } from '../policy/engineEndpoint.js';
import type { ContainerCreateBody } from '../policy/containerSpec.js';
import { sshAgent } from './sshTransport.js';
import { engineMessage, isUnreachable, statusOf, toBerthError, unreachableError } from './engineErrors.js';

export interface ContainerSummary {
  id: string;
  name: string;
  running: boolean;
  labels: Record<string, string>;
}

export interface ContainerDetails extends ContainerSummary {
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

export interface PullProgress {
  message: string;
  fraction: number | null;
}

export interface Engine {
  readonly endpointLabel: string;
  ping(): Promise<{ version: string; apiVersion: string }>;
  hasImage(ref: string): Promise<boolean>;
  pullImage(ref: string, onProgress: (p: PullProgress) => void): Promise<void>;
  ensureNetwork(name: string, labels: Record<string, string>): Promise<void>;
  removeNetwork(name: string): Promise<void>;
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
  /** Starts an interactive process with a TTY in a running container. */
  execTty(id: string, options: TtyOptions): Promise<TtyProcess>;
  /** Creates a named volume; false when it already existed (its content is then kept). */
  ensureVolume(name: string, labels: Record<string, string>): Promise<boolean>;
  removeVolume(name: string): Promise<void>;
  /** Removes every volume carrying all these labels. */
  removeVolumes(labels: Record<string, string>): Promise<void>;
  /** Unpacks a tar stream at a path of a container (created or running), volumes included. */
  putArchive(id: string, containerPath: string, tar: NodeJS.ReadableStream): Promise<void>;
  /** A tar stream of a path in a container (created or running), volumes included. */
  getArchive(id: string, containerPath: string): Promise<NodeJS.ReadableStream>;
}

export interface DockerEngineOptions {
  /**
   * The folder holding ca.pem, cert.pem and key.pem for a TLS tcp endpoint. By default, like
   * the docker command: DOCKER_CERT_PATH, otherwise ~/.docker.
   */
  certPath?: string;
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

function endpointOptions(endpoint: EngineEndpoint, tlsFiles: { ca: Buffer; cert: Buffer; key: Buffer } | null): Docker.DockerOptions {
  switch (endpoint.kind) {
    case 'socket':
      return { socketPath: endpoint.socketPath };
    case 'tcp':
      return { host: endpoint.host, port: endpoint.port, protocol: endpoint.tls ? 'https' : 'http', ...(tlsFiles ?? {}) };
    case 'ssh':
      return sshOptions(endpoint);
  }
}

/** ssh://user@host:port through ssh2 (docker-modem's SSH transport), with a key file or the agent. */
function sshOptions(endpoint: Extract<EngineEndpoint, { kind: 'ssh' }>): Docker.DockerOptions {
  const url = new URL(endpoint.host);
  const agent = sshAgent({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 22,
    username: decodeURIComponent(url.username),
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

export class DockerEngine implements Engine {
  readonly endpointLabel: string;
  private readonly docker: Docker;
  /** Why this engine cannot be used at all (its TLS files are missing); reported by every call. */
  private readonly unusable: BerthError | null;

  constructor(endpoint: EngineEndpoint, options: DockerEngineOptions = {}) {
    this.endpointLabel = describeEndpoint(endpoint);
    let tlsFiles: { ca: Buffer; cert: Buffer; key: Buffer } | null = null;
    let unusable: BerthError | null = null;
    if (endpoint.kind === 'tcp' && endpoint.tls) {
      // Not thrown here: callers build the engine at start-up and expect its calls to fail.
      const certPath = options.certPath ?? (process.env.DOCKER_CERT_PATH || path.join(os.homedir(), '.docker'));
      const read = endpoint.tlsFiles ? readNamedTlsFiles(endpoint.tlsFiles, this.endpointLabel) : readTlsFiles(certPath, this.endpointLabel);
      if (read instanceof BerthError) unusable = read;
      else tlsFiles = read;
    }
    let docker: Docker | null = null;
    try {
      docker = new Docker(endpointOptions(endpoint, tlsFiles));
    } catch (error) {
      unusable ??= new BerthError('engine_unreachable', `Berth cannot use the engine at ${this.endpointLabel}: ${engineMessage(error)}`, {
        hint: "Check the engine's address and key file in the profile's settings.",
        cause: error,
      });
    }
    this.unusable = unusable;
    this.docker = docker ?? new Docker({ socketPath: '/nonexistent' });
  }

  private assertUsable(): void {
    if (this.unusable) throw this.unusable;
  }

  private fail(error: unknown, action: string): never {
    throw toBerthError(error, action, this.endpointLabel);
  }

  async ping(): Promise<{ version: string; apiVersion: string }> {
    this.assertUsable();
    try {
      const v = await this.docker.version();
      return { version: v.Version, apiVersion: v.ApiVersion };
    } catch (error) {
      throw isUnreachable(error) ? unreachableError(this.endpointLabel, error) : toBerthError(error, 'answer', this.endpointLabel);
    }
  }

  async hasImage(ref: string): Promise<boolean> {
    this.assertUsable();
    try {
      await this.docker.getImage(ref).inspect();
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      return this.fail(error, `look up the image ${ref}`);
    }
  }

  async pullImage(ref: string, onProgress: (p: PullProgress) => void): Promise<void> {
    this.assertUsable();
    const layers = new Map<string, { current: number; total: number }>();
    try {
      const stream = await this.docker.pull(ref);
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(
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
    } catch (error) {
      if (isUnreachable(error)) throw unreachableError(this.endpointLabel, error);
      throw new BerthError('image_unavailable', `The image ${ref} is not on this computer and could not be downloaded: ${engineMessage(error)}`, {
        hint: 'Check the image name and your connection, or build or load the image locally (docker build / docker load), or pick another image in the profile settings.',
        cause: error,
      });
    }
  }

  private readonly networksInFlight = new Map<string, Promise<void>>();

  /** Concurrent calls for one name share one attempt. */
  ensureNetwork(name: string, labels: Record<string, string>): Promise<void> {
    if (this.unusable) return Promise.reject(this.unusable);
    const inFlight = this.networksInFlight.get(name);
    if (inFlight) return inFlight;
    const attempt = this.ensureNetworkOnce(name, labels).finally(() => this.networksInFlight.delete(name));
    this.networksInFlight.set(name, attempt);
    return attempt;
  }

  /** A failure setting up a network: the engine is unreachable, or the network failed. */
  private networkFailed(name: string, error: unknown): never {
    if (error instanceof BerthError) throw error;
    if (isUnreachable(error)) throw unreachableError(this.endpointLabel, error);
    throw new BerthError('network_failed', `The sandbox network ${name} could not be set up: ${engineMessage(error)}`, {
      hint: `The chat will not start without its network. Check Docker's networking (docker network inspect ${name}), or set the profile's network to "none".`,
      cause: error,
    });
  }

  private async ensureNetworkOnce(name: string, labels: Record<string, string>): Promise<void> {
    const failed = (error: unknown): never => this.networkFailed(name, error);
    try {
      const info = (await this.docker.getNetwork(name).inspect()) as { Driver?: string; Options?: Record<string, string> };
      // A network of that name that Berth did not make isolated would let chats reach each other.
      if (info.Driver !== 'bridge' || info.Options?.['com.docker.network.bridge.enable_icc'] !== 'false') {
        throw new BerthError(
          'network_failed',
          `The Docker network ${name} exists but does not keep chats apart (it is not a bridge with inter-container traffic off), so Berth will not use it.`,
          { hint: `Remove it (docker network rm ${name}) and try again; Berth creates it correctly. Or set the profile's network to "none".` },
        );
      }
      return;
    } catch (error) {
      if (error instanceof BerthError) throw error;
      if (statusOf(error) !== 404) failed(error);
    }
    try {
      await this.docker.createNetwork({
        Name: name,
        Driver: 'bridge',
        CheckDuplicate: true,
        Labels: labels,
        // Chats on one profile's network cannot reach each other.
        Options: { 'com.docker.network.bridge.enable_icc': 'false' },
      });
    } catch (error) {
      // Another create won the race: that network is the one we wanted.
      if (statusOf(error) === 409 || /already exists/i.test(engineMessage(error))) return;
      failed(error);
    }
    await this.dropDuplicateNetworks(name);
  }

  /**
   * The engine's duplicate check is best effort: two processes creating one name at once can
   * both succeed. Every racer keeps the oldest and removes the rest, so all agree on one.
   */
  private async dropDuplicateNetworks(name: string): Promise<void> {
    let same: Docker.NetworkInspectInfo[];
    try {
      same = (await this.docker.listNetworks({ filters: { name: [name] } })).filter((n) => n.Name === name);
    } catch (error) {
      this.networkFailed(name, error);
    }
    if (same.length < 2) return;
    same.sort((a, b) => (a.Created ?? '').localeCompare(b.Created ?? '') || a.Id.localeCompare(b.Id));
    for (const extra of same.slice(1)) {
      await this.docker.getNetwork(extra.Id).remove().catch(() => undefined);
    }
  }

  async removeNetwork(name: string): Promise<void> {
    this.assertUsable();
    try {
      await this.docker.getNetwork(name).remove();
    } catch (error) {
      if (statusOf(error) === 404) return;
      this.fail(error, `remove the network ${name}`);
    }
  }

  async findContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    this.assertUsable();
    try {
      const list = await this.docker.listContainers({
        all: true,
        filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) },
      });
      return list.map((c) => ({
        id: c.Id,
        name: (c.Names[0] ?? '').replace(/^\//, ''),
        running: c.State === 'running',
        labels: c.Labels ?? {},
      }));
    } catch (error) {
      return this.fail(error, 'list containers');
    }
  }

  async inspectContainer(id: string): Promise<ContainerDetails | null> {
    this.assertUsable();
    try {
      const info = await this.docker.getContainer(id).inspect();
      return {
        id: info.Id,
        name: info.Name.replace(/^\//, ''),
        running: info.State.Running,
        labels: info.Config.Labels ?? {},
        image: info.Config.Image,
        user: info.Config.User,
        networkMode: info.HostConfig.NetworkMode ?? '',
        mounts: (info.Mounts ?? []).map((m) => ({ type: m.Type, source: m.Source, target: m.Destination, readOnly: !m.RW })),
        hostConfig: info.HostConfig as unknown as Record<string, unknown>,
      };
    } catch (error) {
      if (statusOf(error) === 404) return null;
      return this.fail(error, 'inspect a container');
    }
  }

  async createContainer(body: ContainerCreateBody): Promise<string> {
    this.assertUsable();
    try {
      const container = await this.docker.createContainer(body as unknown as Docker.ContainerCreateOptions);
      return container.id;
    } catch (error) {
      if (statusOf(error) === 409) {
        throw new BerthError('already_exists', `A container named ${body.name} already exists.`, { cause: error });
      }
      if (statusOf(error) === 404 && /network/i.test(engineMessage(error))) {
        throw new BerthError('network_failed', `The sandbox could not join its network: ${engineMessage(error)}`, {
          hint: 'Try again; Berth recreates the network. If it keeps failing, set the profile network to "none".',
          cause: error,
        });
      }
      return this.fail(error, 'create the sandbox container');
    }
  }

  async attach(id: string): Promise<AttachedStreams> {
    this.assertUsable();
    try {
      const stream = (await this.docker.getContainer(id).attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as NodeJS.ReadWriteStream & { destroy(): void; end(): void };
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      this.docker.modem.demuxStream(stream, stdout, stderr);
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
    } catch (error) {
      return this.fail(error, 'attach to the sandbox');
    }
  }

  async startContainer(id: string): Promise<void> {
    this.assertUsable();
    try {
      await this.docker.getContainer(id).start();
    } catch (error) {
      if (statusOf(error) === 304) return;
      if (statusOf(error) === 404 && /network/i.test(engineMessage(error))) {
        throw new BerthError('network_failed', `The sandbox could not join its network: ${engineMessage(error)}`, {
          hint: 'Try again; Berth recreates the network. If it keeps failing, set the profile network to "none".',
          cause: error,
        });
      }
      this.fail(error, 'start the sandbox container');
    }
  }

  async stopContainer(id: string, graceSeconds: number): Promise<void> {
    this.assertUsable();
    try {
      await this.docker.getContainer(id).stop({ t: graceSeconds });
    } catch (error) {
      if (statusOf(error) === 304 || statusOf(error) === 404) return;
      this.fail(error, 'stop the sandbox container');
    }
  }

  async removeContainer(id: string): Promise<void> {
    this.assertUsable();
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      if (statusOf(error) === 404) return;
      // Already being removed by a concurrent call.
      if (statusOf(error) === 409 && /already in progress/i.test(engineMessage(error))) return;
      this.fail(error, 'remove the sandbox container');
    }
  }

  async execOnce(id: string, cmd: string[], user: string): Promise<{ exitCode: number; output: string }> {
    this.assertUsable();
    try {
      const exec = await this.docker.getContainer(id).exec({ Cmd: cmd, User: user, AttachStdout: true, AttachStderr: true });
      const stream = await exec.start({ hijack: true, stdin: false });
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      this.docker.modem.demuxStream(stream, out, out);
      await new Promise<void>((resolve) => {
        stream.on('end', resolve);
        stream.on('close', resolve);
        stream.on('error', resolve);
      });
      const info = await exec.inspect();
      return { exitCode: info.ExitCode ?? -1, output: Buffer.concat(chunks).toString('utf8') };
    } catch (error) {
      return this.fail(error, 'run a command in the sandbox');
    }
  }

  async execTty(id: string, options: TtyOptions): Promise<TtyProcess> {
    this.assertUsable();
    try {
      const exec = await this.docker.getContainer(id).exec({
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
    } catch (error) {
      return this.fail(error, 'open a terminal in the sandbox');
    }
  }

  async ensureVolume(name: string, labels: Record<string, string>): Promise<boolean> {
    this.assertUsable();
    try {
      await this.docker.getVolume(name).inspect();
      return false;
    } catch (error) {
      if (statusOf(error) !== 404) this.fail(error, `look up the volume ${name}`);
    }
    try {
      await this.docker.createVolume({ Name: name, Labels: labels });
      return true;
    } catch (error) {
      return this.fail(error, `create the volume ${name}`);
    }
  }

  async removeVolume(name: string): Promise<void> {
    this.assertUsable();
    try {
      await this.docker.getVolume(name).remove();
    } catch (error) {
      if (statusOf(error) === 404) return;
      this.fail(error, `remove the volume ${name}`);
    }
  }

  async removeVolumes(labels: Record<string, string>): Promise<void> {
    this.assertUsable();
    try {
      const list = await this.docker.listVolumes({ filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } });
      for (const v of list.Volumes ?? []) await this.removeVolume(v.Name);
    } catch (error) {
      if (error instanceof BerthError) throw error;
      this.fail(error, 'remove the sandbox volumes');
    }
  }

  async putArchive(id: string, containerPath: string, tar: NodeJS.ReadableStream): Promise<void> {
    this.assertUsable();
    try {
      await this.docker.getContainer(id).putArchive(tar, { path: containerPath });
    } catch (error) {
      this.fail(error, `copy files into the sandbox at ${containerPath}`);
    }
  }

  async getArchive(id: string, containerPath: string): Promise<NodeJS.ReadableStream> {
    this.assertUsable();
    try {
      return await this.docker.getContainer(id).getArchive({ path: containerPath });
    } catch (error) {
      return this.fail(error, `copy files out of the sandbox at ${containerPath}`);
    }
  }
}

/**
 * The only module that talks to Docker. Small on purpose: policy decides, this acts, and
 * tests drive it against a real engine. The Engine interface is in engineInterface.ts; this
 * class is the Docker client behind it, its work split by area: endpoints.ts (how the engine is
 * reached), images.ts, networks.ts, containers.ts and containerExec.ts (attach and exec).
 */
import { environmentImageOps, type EnvironmentImageOps } from './environmentImages.js';
import type Docker from 'dockerode';
import { BerthError } from '../../../shared/errors.js';
import type { EngineEndpoint } from '../policy/engineEndpoint.js';
import type { ContainerCreateBody } from '../policy/containerSpec.js';
import type { SubnetPool } from '../policy/subnets.js';
import { toBerthError } from './engineErrors.js';
import { isPodmanVersion, podmanKind, type EngineKind, type LibpodInfo } from './engineKind.js';
import { LIBPOD_PREFIX, type LibpodDial } from './podmanNetworks.js';
import type { StatsSample } from './statsSample.js';
import { unavailableEngine } from './unavailableEngine.js';
import { describeEndpoint, dockerClientFor, tlsFilesFor, type DockerEngineOptions } from './endpoints.js';
import type { DockerCall, Expected } from './dockerCall.js';
import { DockerImages } from './images.js';
import { DockerNetworks } from './networks.js';
import { DockerContainers } from './containers.js';
import { DockerExec } from './containerExec.js';
import type { AttachedStreams, BuildRequest, ContainerDetails, ContainerSummary, Engine, NetworkSummary, PullProgress, ServiceContainerSpec, StatsStream, TtyOptions, TtyProcess } from './engineInterface.js';

export type * from './engineInterface.js';
export type { StatsSample } from './statsSample.js';
export type { EngineKind } from './engineKind.js';
export type { DockerEngineOptions } from './endpoints.js';
export { describeEndpoint } from './endpoints.js';
export { NO_GATEWAY_OPTION } from './networks.js';

/**
 * The engine for an endpoint: a DockerEngine, or, when a TLS endpoint's files cannot be read,
 * the unavailable engine whose every call says where they were looked for (the app still opens).
 */
export function createEngine(endpoint: EngineEndpoint, options: DockerEngineOptions = {}): Engine {
  const tls = tlsFilesFor(endpoint, options);
  if (tls instanceof BerthError) return unavailableEngine(tls, describeEndpoint(endpoint));
  return new DockerEngine(endpoint, options);
}

export class DockerEngine implements Engine {
  readonly endpointLabel: string;
  private readonly docker: Docker;
  /** Why this engine cannot be used at all (built directly with TLS files missing; createEngine returns unavailableEngine instead). */
  private readonly unusable: BerthError | null;

  private readonly images: DockerImages;
  private readonly networks: DockerNetworks;
  private readonly containers: DockerContainers;
  private readonly exec: DockerExec;

  constructor(endpoint: EngineEndpoint, options: DockerEngineOptions = {}) {
    this.endpointLabel = describeEndpoint(endpoint);
    ({ docker: this.docker, unusable: this.unusable } = dockerClientFor(endpoint, options));
    const shared: DockerCall = {
      endpointLabel: this.endpointLabel,
      call: (action, run, expected) => this.call(action, run, expected),
      kind: () => this.kind(),
      libpod: (docker) => this.libpod(docker),
    };
    this.images = new DockerImages(shared);
    this.networks = new DockerNetworks(shared);
    this.containers = new DockerContainers(shared);
    this.exec = new DockerExec(shared);
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
    return this.images.hasImage(ref);
  }

  imageId(ref: string): Promise<string | null> {
    return this.images.imageId(ref);
  }

  environmentImages(): EnvironmentImageOps {
    return environmentImageOps((action, run) => this.call(action, run));
  }
  pullImage(ref: string, onProgress: (p: PullProgress) => void): Promise<void> {
    return this.images.pullImage(ref, onProgress);
  }
  buildImage(request: BuildRequest, onProgress: (p: PullProgress) => void): Promise<void> {
    return this.images.buildImage(request, onProgress);
  }
  listImageTags(): Promise<string[]> {
    return this.images.listImageTags();
  }
  platform(): Promise<{ os: string; arch: string }> {
    return this.images.platform();
  }
  exportImage(tag: string): Promise<NodeJS.ReadableStream> {
    return this.images.exportImage(tag);
  }
  loadImage(tar: NodeJS.ReadableStream): Promise<void> {
    return this.images.loadImage(tar);
  }
  ensureNetwork(name: string, labels: Record<string, string>, pool?: SubnetPool): Promise<void> {
    return this.networks.ensureNetwork(name, labels, pool);
  }
  removeNetwork(name: string): Promise<void> {
    return this.networks.removeNetwork(name);
  }
  ensureEgressNetwork(name: string, labels: Record<string, string>, kind: 'sealed' | 'outside', pool?: SubnetPool): Promise<void> {
    return this.networks.ensureEgressNetwork(name, labels, kind, pool);
  }
  findNetworks(labels: Record<string, string>): Promise<NetworkSummary[]> {
    return this.networks.findNetworks(labels);
  }
  connectNetwork(network: string, containerId: string, aliases: string[]): Promise<void> {
    return this.networks.connectNetwork(network, containerId, aliases);
  }
  disconnectNetwork(network: string, containerId: string): Promise<void> {
    return this.networks.disconnectNetwork(network, containerId);
  }
  createServiceContainer(spec: ServiceContainerSpec): Promise<string> {
    return this.containers.createServiceContainer(spec);
  }
  followLogs(id: string, fromStart: boolean, onLine: (line: string, stream: 'stdout' | 'stderr') => void): Promise<{ stop(): void }> {
    return this.containers.followLogs(id, fromStart, onLine);
  }
  findContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    return this.containers.findContainers(labels);
  }
  inspectContainer(id: string): Promise<ContainerDetails | null> {
    return this.containers.inspectContainer(id);
  }
  createContainer(body: ContainerCreateBody): Promise<string> {
    return this.containers.createContainer(body);
  }
  startContainer(id: string): Promise<void> {
    return this.containers.startContainer(id);
  }
  stopContainer(id: string, graceSeconds: number): Promise<void> {
    return this.containers.stopContainer(id, graceSeconds);
  }
  removeContainer(id: string): Promise<void> {
    return this.containers.removeContainer(id);
  }
  streamStats(id: string, onSample: (sample: StatsSample) => void): Promise<StatsStream> {
    return this.containers.streamStats(id, onSample);
  }
  writableLayerBytes(id: string): Promise<number | null> {
    return this.containers.writableLayerBytes(id);
  }
  ensureVolume(name: string, labels: Record<string, string>): Promise<boolean> {
    return this.containers.ensureVolume(name, labels);
  }
  hasVolume(name: string): Promise<boolean> {
    return this.containers.hasVolume(name);
  }
  removeVolume(name: string): Promise<void> {
    return this.containers.removeVolume(name);
  }
  removeVolumes(labels: Record<string, string>): Promise<void> {
    return this.containers.removeVolumes(labels);
  }
  putArchive(id: string, containerPath: string, tar: NodeJS.ReadableStream): Promise<void> {
    return this.containers.putArchive(id, containerPath, tar);
  }
  getArchive(id: string, containerPath: string): Promise<NodeJS.ReadableStream> {
    return this.containers.getArchive(id, containerPath);
  }
  attach(id: string): Promise<AttachedStreams> {
    return this.exec.attach(id);
  }
  execOnce(id: string, cmd: string[], user: string): Promise<{ exitCode: number; output: string }> {
    return this.exec.execOnce(id, cmd, user);
  }
  execPipe(id: string, cmd: string[], user: string): Promise<AttachedStreams> {
    return this.exec.execPipe(id, cmd, user);
  }
  execTty(id: string, options: TtyOptions): Promise<TtyProcess> {
    return this.exec.execTty(id, options);
  }
}

/**
 * The Docker calls egress needs beyond the Engine interface: internal networks without a
 * gateway address, connecting the profile's proxy to them, and following the proxy's log.
 * Lives in engine/ because only engine/ talks to Docker.
 */
import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import { BerthError } from '../../../shared/errors.js';
import { engineMessage, statusOf, toBerthError } from './engineErrors.js';

/** Docker's bridge option that leaves the bridge without an address: the host is not a peer. */
export const NO_GATEWAY_OPTION = 'com.docker.network.bridge.inhibit_ipv4';

export interface ProxyContainerSpec {
  name: string;
  image: string;
  labels: Record<string, string>;
  user: string;
  entrypoint: string[];
  env: string[];
  /** The network it reaches the outside through. */
  egressNetwork: string;
  /** DNS servers it resolves names with (none: Docker's, i.e. the host's). */
  dns: string[];
}

export interface EgressEngine {
  /**
   * A sandbox's own network: internal (no route out) and with no address on the bridge, so
   * neither the internet nor the host is reachable; only peers on it (the proxy) are.
   */
  ensureSealedNetwork(name: string, labels: Record<string, string>): Promise<void>;
  /** A plain bridge network the proxies reach the outside through. */
  ensureOutsideNetwork(name: string, labels: Record<string, string>): Promise<void>;
  removeNetwork(name: string): Promise<void>;
  /** Creates the proxy container if missing (not started); returns its id and whether it runs. */
  ensureProxy(spec: ProxyContainerSpec): Promise<{ id: string; running: boolean }>;
  startProxy(id: string): Promise<void>;
  connect(network: string, containerId: string, aliases: string[]): Promise<void>;
  disconnect(network: string, containerId: string): Promise<void>;
  /** The container's address on a network, or null. */
  addressOn(containerId: string, network: string): Promise<string | null>;
  networksByLabel(labels: Record<string, string>): Promise<{ name: string; labels: Record<string, string> }[]>;
  /** Calls onLine with each line the container prints (from its start, or from now); stop() ends it. */
  followLogs(containerId: string, fromStart: boolean, onLine: (line: string, stream: 'stdout' | 'stderr') => void): Promise<{ stop(): void }>;
}

function egressFailed(what: string, error: unknown): never {
  if (error instanceof BerthError) throw error;
  throw new BerthError('network_failed', `Berth could not ${what}: ${engineMessage(error)}`, {
    hint: "The chat does not start without its network policy. Check Docker's networking (docker network ls), or set the profile's egress to \"none\".",
    cause: error,
  });
}

export class DockerEgressEngine implements EgressEngine {
  constructor(private readonly docker: Docker, private readonly endpointLabel: string) {}

  private async ensureNetwork(name: string, labels: Record<string, string>, sealed: boolean): Promise<void> {
    try {
      const info = (await this.docker.getNetwork(name).inspect()) as { Driver?: string; Internal?: boolean; Options?: Record<string, string> };
      const ok = info.Driver === 'bridge' && (!sealed || (info.Internal === true && info.Options?.[NO_GATEWAY_OPTION] === 'true'));
      if (!ok) {
        throw new BerthError('network_failed', `The Docker network ${name} exists but is not sealed the way Berth makes it (internal, no gateway address), so Berth will not use it.`, {
          hint: `Remove it (docker network rm ${name}) and try again; Berth creates it correctly.`,
        });
      }
      return;
    } catch (error) {
      if (error instanceof BerthError) throw error;
      if (statusOf(error) !== 404) egressFailed(`inspect the network ${name}`, error);
    }
    try {
      await this.docker.createNetwork({
        Name: name,
        Driver: 'bridge',
        CheckDuplicate: true,
        Internal: sealed,
        Labels: labels,
        Options: sealed ? { [NO_GATEWAY_OPTION]: 'true' } : {},
      });
    } catch (error) {
      if (statusOf(error) === 409 || /already exists/i.test(engineMessage(error))) return;
      egressFailed(`create the network ${name}`, error);
    }
  }

  ensureSealedNetwork(name: string, labels: Record<string, string>): Promise<void> {
    return this.ensureNetwork(name, labels, true);
  }

  ensureOutsideNetwork(name: string, labels: Record<string, string>): Promise<void> {
    return this.ensureNetwork(name, labels, false);
  }

  async removeNetwork(name: string): Promise<void> {
    try {
      await this.docker.getNetwork(name).remove();
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw toBerthError(error, `remove the network ${name}`, this.endpointLabel);
    }
  }

  async ensureProxy(spec: ProxyContainerSpec): Promise<{ id: string; running: boolean }> {
    let id: string;
    let running = false;
    try {
      const info = await this.docker.getContainer(spec.name).inspect();
      id = info.Id;
      running = info.State.Running;
    } catch (error) {
      if (statusOf(error) !== 404) egressFailed(`inspect the egress proxy ${spec.name}`, error);
      try {
        const created = await this.docker.createContainer({
          name: spec.name,
          Image: spec.image,
          User: spec.user,
          Entrypoint: spec.entrypoint,
          Cmd: [],
          Env: spec.env,
          Labels: spec.labels,
          HostConfig: {
            NetworkMode: spec.egressNetwork,
            Dns: spec.dns,
            // squid refuses to run as pid 1 (its reconfigure signals by pid file).
            Init: true,
            CapDrop: ['ALL'],
            SecurityOpt: ['no-new-privileges:true'],
            ReadonlyRootfs: true,
            Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=64m,mode=1777' },
            Memory: 512 * 1024 * 1024,
            PidsLimit: 256,
            RestartPolicy: { Name: 'no' },
            LogConfig: { Type: 'json-file', Config: { 'max-size': '5m', 'max-file': '1' } },
          },
        });
        id = created.id;
      } catch (createError) {
        if (statusOf(createError) === 409) return this.ensureProxy(spec);
        if (statusOf(createError) === 404 && /image/i.test(engineMessage(createError))) {
          throw new BerthError('image_unavailable', `Berth's egress proxy image ${spec.image} is not on this computer.`, {
            hint: 'Build it once: bash scripts/build-egress-image.sh (or docker build -t berth-egress:1 build/egress), or set the profile\'s egress to "open" or "none".',
            cause: createError,
          });
        }
        egressFailed(`create the egress proxy ${spec.name}`, createError);
      }
    }
    return { id, running };
  }

  async startProxy(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).start();
    } catch (error) {
      if (statusOf(error) !== 304) egressFailed('start the egress proxy', error);
    }
  }

  async connect(network: string, containerId: string, aliases: string[]): Promise<void> {
    try {
      await this.docker.getNetwork(network).connect({ Container: containerId, EndpointConfig: { Aliases: aliases } });
    } catch (error) {
      // Already connected: what we wanted.
      if (statusOf(error) === 403 && /already exists|already attached/i.test(engineMessage(error))) return;
      egressFailed(`connect the egress proxy to ${network}`, error);
    }
  }

  async disconnect(network: string, containerId: string): Promise<void> {
    try {
      await this.docker.getNetwork(network).disconnect({ Container: containerId, Force: true });
    } catch (error) {
      if (statusOf(error) === 404 || /is not connected/i.test(engineMessage(error))) return;
      throw toBerthError(error, `disconnect the egress proxy from ${network}`, this.endpointLabel);
    }
  }

  async addressOn(containerId: string, network: string): Promise<string | null> {
    try {
      const info = await this.docker.getContainer(containerId).inspect();
      return info.NetworkSettings.Networks[network]?.IPAddress || null;
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw toBerthError(error, 'inspect a container', this.endpointLabel);
    }
  }

  async networksByLabel(labels: Record<string, string>): Promise<{ name: string; labels: Record<string, string> }[]> {
    try {
      const list = await this.docker.listNetworks({ filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } });
      return list.map((n) => ({ name: n.Name, labels: n.Labels ?? {} }));
    } catch (error) {
      throw toBerthError(error, 'list networks', this.endpointLabel);
    }
  }

  async followLogs(
    containerId: string,
    fromStart: boolean,
    onLine: (line: string, stream: 'stdout' | 'stderr') => void,
  ): Promise<{ stop(): void }> {
    let stream: NodeJS.ReadableStream & { destroy(): void };
    try {
      stream = (await this.docker.getContainer(containerId).logs({
        follow: true, stdout: true, stderr: true, ...(fromStart ? {} : { since: Math.floor(Date.now() / 1000) }),
      })) as unknown as NodeJS.ReadableStream & { destroy(): void };
    } catch (error) {
      egressFailed("follow the egress proxy's log", error);
    }
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
    this.docker.modem.demuxStream(stream, split('stdout'), split('stderr'));
    stream.on('error', () => undefined);
    return { stop: () => stream.destroy() };
  }
}

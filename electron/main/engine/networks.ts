/**
 * Networks: a chat's own (one attempt per name, a subnet from Berth's pool, duplicates of a lost
 * race removed), the egress proxies' sealed and outside ones, Podman's isolated ones, joins.
 */
import Docker from 'dockerode';
import { BerthError } from '../../../shared/errors.js';
import { pickSubnet, poolCapacity, type SubnetPool } from '../policy/subnets.js';
import { engineMessage, isUnreachable, statusOf, unreachableError } from './engineErrors.js';
import { ensureIsolatedNetwork } from './podmanNetworks.js';
import type { NetworkSummary } from './engineInterface.js';
import type { DockerCall } from './dockerCall.js';

/** Docker's bridge option that leaves the bridge without an address: the host is not a peer on it. */
export const NO_GATEWAY_OPTION = 'com.docker.network.bridge.inhibit_ipv4';


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

export class DockerNetworks {
  constructor(private readonly c: DockerCall) {}

  private readonly networksInFlight = new Map<string, Promise<void>>();

  /** Concurrent calls for one name share one attempt. */
  ensureNetwork(name: string, labels: Record<string, string>, pool?: SubnetPool): Promise<void> {
    const inFlight = this.networksInFlight.get(name);
    if (inFlight) return inFlight;
    const attempt = this.c.call(`set up the network ${name}`, (docker) => this.ensureNetworkOnce(docker, name, labels, pool), (error) =>
      this.networkFailed(name, error),
    ).finally(() => this.networksInFlight.delete(name));
    this.networksInFlight.set(name, attempt);
    return attempt;
  }

  /** A failure setting up a network: the engine is unreachable, or the network failed. */
  private networkFailed(name: string, error: unknown): never {
    if (error instanceof BerthError) throw error;
    if (isUnreachable(error)) throw unreachableError(this.c.endpointLabel, error);
    throw new BerthError('network_failed', `The sandbox network ${name} could not be set up: ${engineMessage(error)}`, {
      hint: `The chat will not start without its network. Check Docker's networking (docker network inspect ${name}), or set the profile's egress to "none".`,
      cause: error,
    });
  }

  private async ensureNetworkOnce(docker: Docker, name: string, labels: Record<string, string>, pool: SubnetPool | undefined): Promise<void> {
    // Podman's bridge cannot turn inter-container traffic off: its chats get an isolated network each (podmanNetworks.ts).
    if ((await this.c.kind()).name === 'podman') return ensureIsolatedNetwork(this.c.libpod(docker), name, labels);
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
    return this.c.call(
      `remove the network ${name}`,
      async (docker) => void (await docker.getNetwork(name).remove()),
      (error) => (statusOf(error) === 404 ? { value: undefined } : undefined),
    );
  }

  ensureEgressNetwork(name: string, labels: Record<string, string>, kind: 'sealed' | 'outside', pool?: SubnetPool): Promise<void> {
    const sealed = kind === 'sealed';
    return this.c.call(
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
    const list = await this.c.call('list networks', (docker) =>
      docker.listNetworks({ filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } }),
    );
    const ipv4 = (n: Docker.NetworkInspectInfo, field: 'Subnet' | 'Gateway') => (n.IPAM?.Config ?? []).map((c) => c[field] ?? '').filter((x) => x.includes('.'));
    return list.map((n) => ({ name: n.Name, labels: n.Labels ?? {}, subnets: ipv4(n, 'Subnet'), gateways: ipv4(n, 'Gateway') }));
  }

  connectNetwork(network: string, containerId: string, aliases: string[]): Promise<void> {
    return this.c.call(
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
    return this.c.call(
      `disconnect a container from ${network}`,
      async (docker) => void (await docker.getNetwork(network).disconnect({ Container: containerId, Force: true })),
      (error) => (statusOf(error) === 404 || /is not connected/i.test(engineMessage(error)) ? { value: undefined } : undefined),
    );
  }
}

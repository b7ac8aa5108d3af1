/**
 * Addresses for the sandboxes' networks (allowlist sandboxes' sealed ones, open profiles'
 * bridges). Pure: DockerEngine asks the engine which
 * subnets are taken and creates the network with the one chosen here.
 *
 * Why Berth picks them: without a subnet, every network takes one of the daemon's default
 * address pools (about 30 /16 and /20 blocks on a stock Docker), so the ~31st allowlist
 * sandbox could not start ("could not find an available, non-overlapping IPv4 address pool").
 * A sealed network holds two containers (the sandbox and its proxy) plus the gateway address
 * Docker reserves, so a /28 is plenty; a /16 range holds 4096 of them. The range sits outside
 * Docker's defaults (172.17–31/16, 192.168/16) and the common home and office ranges. A sealed
 * bridge has no address on the host (no gateway, internal), so it adds no route there: a LAN
 * that uses the same addresses is not shadowed.
 */
import { BerthError } from '../../../shared/errors.js';

export interface SubnetPool {
  /** The range subnets are carved from (IPv4 CIDR). */
  range: string;
  /** Each network's prefix length (28: 16 addresses). */
  prefix: number;
}

export const DEFAULT_SUBNET_POOL: SubnetPool = { range: '10.213.0.0/16', prefix: 28 };

/** /29 is the smallest that holds network, broadcast, gateway, sandbox and proxy addresses. */
const SMALLEST_PREFIX = 29;

interface Cidr {
  base: number;
  bits: number;
}

function parseCidr(text: string): Cidr | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text.trim());
  if (!m) return null;
  const octets = m.slice(1, 5).map(Number);
  const bits = Number(m[5]);
  if (octets.some((o) => o > 255) || bits > 32) return null;
  const ip = octets.reduce((acc, o) => acc * 256 + o, 0);
  return { base: maskOff(ip, bits), bits };
}

function maskOff(ip: number, bits: number): number {
  const size = 2 ** (32 - bits);
  return Math.floor(ip / size) * size;
}

function format(c: Cidr): string {
  const o = [24, 16, 8, 0].map((shift) => Math.floor(c.base / 2 ** shift) % 256);
  return `${o.join('.')}/${c.bits}`;
}

function overlaps(a: Cidr, b: Cidr): boolean {
  const bits = Math.min(a.bits, b.bits);
  return maskOff(a.base, bits) === maskOff(b.base, bits);
}

/**
 * Reads a pool from its settings (`BERTH_EGRESS_POOL`, `BERTH_EGRESS_POOL_SIZE`); a bad one is
 * an error that names the setting, not a silent fallback to the default.
 */
export function parseSubnetPool(range: string | undefined, prefix: string | undefined): SubnetPool {
  const pool = { range: range?.trim() || DEFAULT_SUBNET_POOL.range, prefix: prefix?.trim() ? Number(prefix) : DEFAULT_SUBNET_POOL.prefix };
  const cidr = parseCidr(pool.range);
  const hint = 'Fix or unset it and restart Berth; until then sandboxes of allowlist and open profiles cannot start.';
  if (!cidr) throw new BerthError('network_failed', `BERTH_EGRESS_POOL must be an IPv4 range such as 10.213.0.0/16, not "${pool.range}".`, { hint });
  if (!Number.isInteger(pool.prefix) || pool.prefix < cidr.bits || pool.prefix > SMALLEST_PREFIX) {
    throw new BerthError('network_failed', `BERTH_EGRESS_POOL_SIZE must be a prefix length from ${cidr.bits} to ${SMALLEST_PREFIX} (28 by default), not "${prefix}".`, { hint });
  }
  return { range: format(cidr), prefix: pool.prefix };
}

/**
 * An open profile's network (its bridge `berth-<profile>`, shared by all its sandboxes) takes
 * a /22 from the same range: 1021 sandboxes per profile (more than the 500 live chats
 * bench:app runs), and 64 of them in a /16 still leave room for thousands of sealed /28s. Like
 * the sealed networks, it then never takes one of Docker's default pools (~30 networks shared
 * by everything on the engine). A range smaller than a /22 gives its whole self.
 */
export const OPEN_NETWORK_PREFIX = 22;

export function openNetworkPool(pool: SubnetPool): SubnetPool {
  const range = parseCidr(pool.range);
  return { range: pool.range, prefix: Math.max(OPEN_NETWORK_PREFIX, range ? range.bits : OPEN_NETWORK_PREFIX) };
}

/** How many networks the pool holds. */
export function poolCapacity(pool: SubnetPool): number {
  const cidr = parseCidr(pool.range);
  return cidr ? 2 ** (pool.prefix - cidr.bits) : 0;
}

/**
 * The first subnet of the pool that overlaps none of `taken` (the engine's networks' subnets,
 * and those being created right now); null when the pool is used up. IPv6 entries are ignored.
 */
export function pickSubnet(pool: SubnetPool, taken: Iterable<string>): string | null {
  const range = parseCidr(pool.range);
  if (!range) return null;
  const used = [...taken].map(parseCidr).filter((c): c is Cidr => c !== null && overlaps(c, range));
  const step = 2 ** (32 - pool.prefix);
  const count = poolCapacity(pool);
  for (let i = 0; i < count; i++) {
    const candidate = { base: range.base + i * step, bits: pool.prefix };
    // A taken block at least this big covering the candidate: skip past it in one go.
    const hit = used.find((u) => overlaps(u, candidate));
    if (!hit) return format(candidate);
    if (hit.bits < pool.prefix) i = Math.max(i, (maskOff(candidate.base, hit.bits) + 2 ** (32 - hit.bits) - range.base) / step - 1);
  }
  return null;
}

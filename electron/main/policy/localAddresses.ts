/**
 * This computer's own addresses, which the egress proxy must never connect to whatever name
 * resolved to them (policy/egress.ts: the private ranges are refused anyway; these are the rest:
 * a server's or cloud VM's public address, a Docker bridge's gateway in a public or test range).
 * Pure: egress/localAddressWatch.ts reads the interfaces and Docker's networks and asks here.
 */

/** One address of an interface, as os.networkInterfaces() reports it. */
export interface InterfaceAddress {
  address: string;
  family: string | number;
}

/** A Docker network's address management: its IPv4 subnets and the gateways it reports. */
export interface NetworkAddresses {
  subnets: readonly string[];
  gateways?: readonly string[];
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function ipv4ToInt(ip: string): number | null {
  const m = IPV4.exec(ip);
  if (!m) return null;
  const octets = m.slice(1, 5).map(Number);
  return octets.some((o) => o > 255) ? null : octets.reduce((acc, o) => acc * 256 + o, 0);
}

function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/**
 * The address Docker gives a bridge network's gateway when it was made with a subnet and no
 * gateway: the subnet's first host. Docker then reports no Gateway (measured on 20.10:
 * `docker network create --subnet 198.18.7.0/24` inspects with an empty Gateway, while the
 * bridge holds 198.18.7.1 on this computer).
 */
export function firstHost(subnet: string): string | null {
  const [base, bits] = subnet.split('/');
  const ip = ipv4ToInt(base ?? '');
  const prefix = Number(bits);
  if (ip === null || !Number.isInteger(prefix) || prefix < 0 || prefix > 30) return null;
  const size = 2 ** (32 - prefix);
  return intToIpv4(Math.floor(ip / size) * size + 1);
}

/** Whether an IPv4 address lies in a CIDR range (or is that address); IPv6 ranges: see coveredBy. */
function inIpv4Range(ip: number, range: string): boolean {
  const [base, bits] = range.split('/');
  const start = ipv4ToInt(base ?? '');
  if (start === null) return false;
  const size = 2 ** (32 - (bits === undefined ? 32 : Number(bits)));
  return Math.floor(ip / size) === Math.floor(start / size);
}

/** The 16-bit groups of an IPv6 address (no zone), or null. */
function ipv6Groups(address: string): number[] | null {
  if (!address.includes(':') || /[^0-9a-f:]/i.test(address)) return null;
  const [head = '', tail, extra] = address.split('::');
  if (extra !== undefined) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const a = parse(head);
  const b = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? a : [...a, ...new Array<number>(8 - a.length - b.length).fill(0), ...b];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function inIpv6Range(groups: number[], range: string): boolean {
  const [base, bits] = range.split('/');
  const start = ipv6Groups(base ?? '');
  if (!start) return false;
  let left = bits === undefined ? 128 : Number(bits);
  for (let i = 0; i < 8 && left > 0; i++, left -= 16) {
    const keep = Math.min(16, left);
    const mask = (0xffff << (16 - keep)) & 0xffff;
    if (((groups[i] as number) & mask) !== ((start[i] as number) & mask)) return false;
  }
  return true;
}

/** Whether one of these ranges (IPv4 or IPv6 CIDRs or single addresses) holds the address. */
export function coveredBy(address: string, ranges: readonly string[]): boolean {
  const v4 = ipv4ToInt(address);
  if (v4 !== null) return ranges.some((r) => inIpv4Range(v4, r));
  const v6 = ipv6Groups(address);
  return v6 !== null && ranges.some((r) => r.includes(':') && inIpv6Range(v6, r));
}

/**
 * Every address of every interface (IPv4 and IPv6, zone dropped) and every Docker network's
 * gateway (those it reports, and each subnet's first host, which Docker takes when it reports
 * none), once each, sorted. On a Linux engine the gateways are interface addresses anyway; where
 * Docker runs in a VM they are the VM's, which the proxy also reaches.
 */
export function localAddresses(interfaces: Record<string, readonly InterfaceAddress[] | undefined>, networks: readonly NetworkAddresses[]): string[] {
  const found = new Set<string>();
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      const address = (a.address.split('%')[0] as string).toLowerCase();
      if (ipv4ToInt(address) !== null || ipv6Groups(address)) found.add(address);
    }
  }
  for (const n of networks) {
    for (const g of n.gateways ?? []) if (ipv4ToInt(g) !== null) found.add(g);
    for (const s of n.subnets) {
      const g = firstHost(s);
      if (g) found.add(g);
    }
  }
  return [...found].sort();
}

/** Plain words for each egress mode: the profile form and the Network view say the same thing. */
import type { EgressMode, EngineSetting, NetworkRequest } from '../../../shared/contract';
import { allowEntryFor, DEFAULT_PORTS, egressEntryProblem, entriesFromText, isIpAddress, type ChatGrant } from '../../../shared/egress';

export const EGRESS_LABELS: Record<EgressMode, string> = {
  allowlist: 'Allowlist — only the hosts below, through Berth’s proxy',
  none: 'None — no network at all',
  open: 'Open — the internet and services on your computer',
};

export const EGRESS_EXPLAINED: Record<EgressMode, string> = {
  allowlist:
    'The sandbox has no route out except Berth’s proxy, which lets HTTP and HTTPS through only to the hosts on the profile’s allowlist, checked by name and, for HTTPS, by the name in the TLS handshake (SNI), without decrypting anything. No IP addresses, no other ports, no DNS; services on your computer are never reachable. Limits: an allowed host still receives whatever the sandbox sends it, so list only hosts you trust with your files. Tools that ignore HTTP_PROXY/HTTPS_PROXY get no network: point them at http://berth-egress-proxy:3128 (HTTP and HTTPS).',
  none: 'The sandbox has no network interface but loopback: nothing in or out.',
  open:
    'Warning: the sandbox can reach the whole internet and any service on your computer that listens on all interfaces (0.0.0.0), such as a development server or a database. Chats still cannot reach each other.',
};

/** The allowlist as the form shows it: one entry a line. */
export function allowFromText(text: string): string[] {
  return [...new Set(entriesIn(text))];
}

/** The entries typed in some text: separated by white space or commas, method words with their host (shared/egressMethods). */
function entriesIn(text: string): string[] {
  return entriesFromText(text);
}

/** Each allowlist entry main would refuse, as "Line N: why" (the rule is shared/egress.ts's). */
export function allowProblems(text: string): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const entry of entriesIn(line)) {
      const problem = egressEntryProblem(entry);
      if (problem) problems.push(`Line ${i + 1}: ${problem}`);
    }
  });
  return problems;
}

/** Whether "Allow this host for the profile" can add the request's host: a host name the allowlist takes. */
export function canAllowHost(host: string): boolean {
  return egressEntryProblem(host) === null;
}

/** The Network view's Result cell: what happened and, for a refusal, why. */
export function requestResult(r: Pick<NetworkRequest, 'allowed' | 'host' | 'port' | 'reason'> & { method?: string }): string {
  if (r.allowed) return 'allowed';
  if (r.reason === 'method') {
    return r.method === 'CONNECT'
      ? 'refused: an HTTP-only rule on the list (plain HTTP, some methods); HTTPS cannot be checked by method'
      : `refused: the list's HTTP-only rule for this host does not allow ${r.method ?? 'this method'}`;
  }
  if (r.reason === 'local-address') return 'refused: the name resolves to a local or private address, never reached';
  if (isIpAddress(r.host) || r.reason === 'ip-address') return 'refused: an IP address; only host names can be allowed';
  if (!canAllowHost(r.host)) return 'refused: not a host name the list can take';
  const withPort = allowEntryFor(r.host, r.port).endsWith(`:${r.port}`);
  return `refused: not on the profile's list${withPort ? ` with port ${r.port}` : ''}`;
}

/**
 * Why the allowlist cannot be this profile's network on its engine, or null: its proxy runs on
 * this computer's Docker. Main refuses such a profile when it is saved (policy/egress.ts,
 * allowlistEngineProblem, which also covers a context that points elsewhere).
 */
export function allowlistEngineNote(egress: EgressMode, engineKind: EngineSetting['kind']): string | null {
  if (egress !== 'allowlist' || !(engineKind === 'ssh' || engineKind === 'tcp' || engineKind === 'podman')) return null;
  return "The allowlist needs this computer's Docker engine: its proxy runs here, so sandboxes on another machine or on Podman cannot use it. Pick None or Open for this engine.";
}

/** Refused requests to one host and port, as the Network view groups them (newest first). */
export interface RefusedGroup {
  host: string;
  port: number | null;
  count: number;
  /** Its last refusal's place in the log (newer: larger), for the order. */
  last: number;
  result: string;
  /** Whether Allow can be offered (a host name, not an address or a local one). */
  allowable: boolean;
}

/** The chat's refusals by host and port, the most recent first: one row each however often it was refused. */
export function refusedGroups(requests: readonly NetworkRequest[]): RefusedGroup[] {
  const groups = new Map<string, RefusedGroup>();
  requests.forEach((r, i) => {
    if (r.allowed) return;
    const key = `${r.host}:${r.port ?? ''}`;
    const g = groups.get(key);
    const result = requestResult(r);
    const allowable = canAllowHost(r.host) && r.reason !== 'local-address';
    if (g) Object.assign(g, { count: g.count + 1, last: i, result, allowable });
    else groups.set(key, { host: r.host, port: r.port, count: 1, last: i, result, allowable });
  });
  return [...groups.values()].sort((a, b) => b.last - a.last);
}

/** The ports an Allow can take for a refused port: that port alone, or both web ports for 80 or 443 (the bare host). */
export function portChoices(port: number | null): { label: string; port: number | null }[] {
  if (port === null) return [{ label: 'Ports 80 and 443', port: null }];
  const choices: { label: string; port: number | null }[] = [{ label: `Port ${port} only`, port }];
  if ((DEFAULT_PORTS as readonly number[]).includes(port)) choices.push({ label: 'Ports 80 and 443', port: null });
  return choices;
}

/** What the Network view says of the profile's HTTP-only rules (entries with methods), or null when it has none. */
export function httpOnlyNote(entries: readonly string[]): string | null {
  if (entries.length === 0) return null;
  return `HTTP-only rules on this profile's list: ${entries.join('; ')}. Each lets only its methods through, over plain HTTP; HTTPS to those hosts is refused, since a method cannot be seen inside HTTPS without decrypting it.`;
}

/** A chat allowance as its list says it: the entry and how long it lasts. */
export function grantText(g: ChatGrant): string {
  return g.scope === 'once' && g.expiresAt !== null
    ? `${g.entry}, once, until ${new Date(g.expiresAt).toLocaleTimeString()}`
    : `${g.entry}, for this chat`;
}

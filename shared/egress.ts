/**
 * Network egress: a profile's `egress` mode and `egressAllow` list, and the per-chat Network
 * view's methods and events. Imported by contract.ts; no Node or DOM APIs.
 */
import { z } from 'zod';
import { methodsProblem, normalizeEntry, splitEntry } from './egressMethods.js';

export { entriesFromText, HTTP_METHODS, splitEntry } from './egressMethods.js';

/**
 * 'none': no network at all. 'allowlist': no route out except Berth's filtering proxy, which
 * lets through HTTP and HTTPS to the names in egressAllow only. 'open': the profile's own
 * bridge network: the internet and services on this computer are reachable.
 */
export const EgressMode = z.enum(['none', 'allowlist', 'open']);
export type EgressMode = z.infer<typeof EgressMode>;
/** New profiles' (and the default profile's) network. */
export const DEFAULT_EGRESS: EgressMode = 'allowlist';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Why an egressAllow entry is not valid, or null: `host`, `*.domain`, either with `:port`, and
 * optionally the plain-HTTP methods it allows (`host GET,HEAD`: shared/egressMethods).
 */
export function egressEntryProblem(entry: string): string | null {
  const { target, methods } = splitEntry(entry);
  const m = /^(\*\.)?([^:]+)(?::(\d{1,5}))?$/.exec(target);
  if (!m) return `"${entry}" is not a host name, *.domain, or either with :port.`;
  const host = m[2] as string;
  if (m[3] !== undefined) {
    const port = Number(m[3]);
    if (port < 1 || port > 65535) return `"${entry}": a port is between 1 and 65535.`;
  }
  if (host.length > 253) return `"${entry}": a host name has at most 253 characters.`;
  const labels = host.split('.');
  if (!labels.every((l) => LABEL.test(l))) return `"${entry}" is not a host name (letters, digits, hyphens and dots, lower case).`;
  if (isIpAddress(host)) return `"${entry}" looks like an IP address; the allowlist takes host names only.`;
  if (m[1] && labels.length < 2) return `"${entry}": a wildcard needs a domain with a dot, like *.example.com.`;
  return methodsProblem(entry, methods);
}

/** An IPv4 or IPv6 address (bracketed or not) as a host: the allowlist never takes one. */
export function isIpAddress(host: string): boolean {
  if (host.includes(':')) return /^\[?[0-9a-f:.]+\]?$/i.test(host);
  return /^\d+$/.test(host.split('.').pop() ?? '');
}

/** The default ports of an entry without one: HTTP and HTTPS. */
export const DEFAULT_PORTS = [80, 443] as const;

/** The entry "Allow this host" adds: the bare host for 80/443, host:port otherwise. */
export function allowEntryFor(host: string, port: number | null): string {
  return exactEntryFor(host, port !== null && (DEFAULT_PORTS as readonly number[]).includes(port) ? null : port);
}

export const EgressAllowEntry = z
  .string()
  .trim()
  .min(1, 'An allowlist entry cannot be empty.')
  .max(270)
  .transform(normalizeEntry)
  .superRefine((v, ctx) => {
    const problem = egressEntryProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** What a developer needs to install things: the main package registries and source hosts. */
export const DEFAULT_EGRESS_ALLOW: readonly string[] = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'static.crates.io',
  'index.crates.io',
  'proxy.golang.org',
  'sum.golang.org',
  'rubygems.org',
  'repo.maven.apache.org',
  'repo1.maven.org',
  'deb.debian.org',
  'security.debian.org',
  'archive.ubuntu.com',
  'security.ubuntu.com',
  'dl-cdn.alpinelinux.org',
  'github.com',
  'codeload.github.com',
  'objects.githubusercontent.com',
  'raw.githubusercontent.com',
  'gitlab.com',
  'bitbucket.org',
];

/** A chat's Network view lists its newest requests, up to this many: main keeps them, the page shows them. */
export const NETWORK_LOG_LIMIT = 500;

/**
 * Why the proxy refused a request, as its answer's X-Berth-Refused header and the Network view
 * say: not on the profile's list (nor allowed for the chat), an IP address (the list takes names
 * only), a name that resolved to a local or private address (never reached, whatever the list),
 * a server on the ssh port whose first line was not SSH's, or a method (or an HTTPS tunnel) that
 * the host's HTTP-only rule does not allow (`host GET,HEAD`).
 */
export const RefusalReason = z.enum(['not-listed', 'ip-address', 'local-address', 'not-ssh', 'method']);
export type RefusalReason = z.infer<typeof RefusalReason>;

/** How far an Allow from the Network view reaches: this host:port for 10 minutes, this chat, or the profile's list. */
export const AllowScope = z.enum(['once', 'chat', 'profile']);
export type AllowScope = z.infer<typeof AllowScope>;
/** How long an "Allow once" lasts. */
export const ALLOW_ONCE_MS = 10 * 60 * 1000;

/** The entry an Allow adds for host and port: `host:port`, or the bare host (80 and 443) when no port is given. */
export function exactEntryFor(host: string, port: number | null): string {
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  const entry = port === null ? name : `${name}:${port}`;
  const problem = egressEntryProblem(entry);
  if (problem) throw new Error(problem);
  return entry;
}

/** A chat's own allowance on top of its profile's list: gone with the chat, or at expiresAt. */
export const ChatGrant = z.object({
  entry: z.string(),
  scope: z.enum(['once', 'chat']),
  /** Milliseconds since the epoch when an "Allow once" ends; null for the chat's lifetime. */
  expiresAt: z.number().nullable(),
});
export type ChatGrant = z.infer<typeof ChatGrant>;

export const NetworkRequest = z.object({
  chatId: z.string(),
  /** Milliseconds since the epoch, when the proxy finished with the request. */
  time: z.number(),
  host: z.string(),
  port: z.number().int().nullable(),
  method: z.string(),
  allowed: z.boolean(),
  /** Bytes the sandbox sent and received through the proxy for this request. */
  bytesOut: z.number().int(),
  bytesIn: z.number().int(),
  /** For a request the proxy refused by its own rules, why (absent for an allowed one, or a cut TLS handshake). */
  reason: RefusalReason.optional(),
});
export type NetworkRequest = z.infer<typeof NetworkRequest>;

const ChatIdField = z.string().min(1).max(256);

/** The first New chat's one question (shared/egressPresets STARTING_POINTS): how open the network is. */
export const StartingPointId = z.enum(['locked', 'balanced', 'open']);
export type StartingPointId = z.infer<typeof StartingPointId>;

export const egressMethods = {
  /** The requests a chat's sandbox made through its profile's proxy, oldest first (the last 500). */
  'network.log': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({
      mode: EgressMode, requests: z.array(NetworkRequest), grants: z.array(ChatGrant),
      /** The profile's HTTP-only rules (entries with methods: plain HTTP, those methods only), as the view names them. */
      httpOnly: z.array(z.string()),
    }),
  },
  /**
   * Allows host:port (the bare host, 80 and 443, when port is null) once (10 minutes, this chat),
   * for this chat, or on the profile's list; the next request passes. A chat's allowance never
   * reaches its profile's other chats.
   */
  'network.allow': {
    request: z.object({
      chatId: ChatIdField, host: z.string().min(1).max(270), port: z.number().int().min(1).max(65535).nullable(), scope: AllowScope,
    }).strict(),
    response: z.object({ entry: z.string(), egressAllow: z.array(z.string()), grants: z.array(ChatGrant) }),
  },
  /**
   * Whether New chat in this profile asks the first-chat question first: only the first New chat
   * of a fresh data folder, in the default profile whose network nobody has set yet, and never
   * again once answered (policy/startingPoint).
   */
  'network.startingPoint': {
    request: z.object({ profile: z.string().min(1).max(64) }).strict(),
    response: z.object({ ask: z.boolean() }),
  },
  /**
   * The question's answer: sets the default profile's network to that starting point (changeable
   * in the profile form). `applied` is false when it had been answered already (another window).
   */
  'network.chooseStartingPoint': {
    request: z.object({ choice: StartingPointId }).strict(),
    response: z.object({ applied: z.boolean(), egress: EgressMode, egressAllow: z.array(z.string()) }),
  },
  /** Ends a chat's own allowance (once or for the chat); its next request to that host:port is refused. */
  'network.revoke': {
    request: z.object({ chatId: ChatIdField, entry: z.string().min(1).max(270) }).strict(),
    response: z.object({ grants: z.array(ChatGrant) }),
  },
} as const;

export const egressEvents = {
  /** A request the proxy allowed or refused, as it finished. */
  'network.request': NetworkRequest,
  /** A chat's own allowances changed (granted, revoked, or an "Allow once" ran out). */
  'network.grants': z.object({ chatId: z.string(), grants: z.array(ChatGrant) }),
} as const;

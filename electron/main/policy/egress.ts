/**
 * Egress decisions without I/O: the squid configuration for a profile's allowlist, the entry
 * "Allow this host" adds, names of the egress networks and containers, and the proxy's log lines.
 */
import { createHash } from 'node:crypto';
import { egressEntryProblem } from '../../../shared/egress.js';

export const PROXY_PORT = 3128;
/** The plain-HTTP port (HAProxy): HTTP_PROXY points here, HTTPS_PROXY at squid's PROXY_PORT. */
export const HTTP_PORT = 3130;
/** The proxy's name on every sandbox network: HTTP(S)_PROXY points here. */
export const PROXY_ALIAS = 'berth-egress-proxy';
/** The default ports of an entry without one: HTTP and HTTPS. */
export const DEFAULT_PORTS = [80, 443] as const;

/**
 * Destinations the proxy never connects to, whatever name resolved to them: this computer, its
 * LAN and link-local (cloud metadata) addresses. An allowed name cannot be pointed at them.
 */
export const NEVER_REACHED = [
  '0.0.0.0/8', '127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10',
  '::1', 'fc00::/7', 'fe80::/10',
];

export interface AllowRule {
  /** squid's dstdomain form: `.example.com` for `*.example.com` (the domain and every name under it). */
  domain: string;
  ports: readonly number[];
}

export function allowRules(entries: readonly string[]): AllowRule[] {
  return entries.map((entry) => {
    const problem = egressEntryProblem(entry);
    if (problem) throw new Error(problem);
    const m = /^(\*\.)?([^:]+)(?::(\d+))?$/.exec(entry) as RegExpExecArray;
    return { domain: (m[1] ? '.' : '') + (m[2] as string), ports: m[3] ? [Number(m[3])] : DEFAULT_PORTS };
  });
}

/**
 * The include file squid reads on each reconfigure: per entry, an acl pair and an allow line
 * for the request (CONNECT's host, or the plain request's) and the entry's names for the TLS
 * check of a CONNECT's client hello (SNI).
 */
export function squidAllowConf(entries: readonly string[]): string {
  const lines = [
    '# Written by Berth from the profile setting egressAllow.',
    '# Never matches: the SNI acl exists even for an empty list.',
    'acl berth_sni ssl::server_name berth.invalid',
  ];
  allowRules(entries).forEach((rule, i) => {
    // -n: never match an IP-literal request through a reverse lookup of its address.
    lines.push(`acl berth_host_${i} dstdomain -n ${rule.domain}`);
    lines.push(`acl berth_port_${i} port ${rule.ports.join(' ')}`);
    lines.push(`http_access allow berth_host_${i} berth_port_${i}`);
    lines.push(`acl berth_sni ssl::server_name ${rule.domain}`);
  });
  return `${lines.join('\n')}\n`;
}

/** Where the proxy keeps its throwaway certificate (never shown to a client: squid only peeks and splices). */
export function proxyCertPaths(confDir: string): { cert: string; key: string } {
  return { cert: `${confDir}/peek.crt`, key: `${confDir}/peek.key` };
}

/** The shell command that makes that certificate when the proxy starts (a new one each start). */
export function proxyCertCommand(confDir: string): string {
  const { cert, key } = proxyCertPaths(confDir);
  return `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -subj /CN=berth-egress-peek -keyout ${key} -out ${cert} 2>/dev/null`;
}

/** A name that never resolves: the warm-up CONNECT's destination. */
export const WARM_UP_HOST = 'berth-warm-up.invalid';

/** The proxy's inner port, on its own loopback only: where CONNECTs go for the SNI check. */
export const SNI_PORT = 3129;

/**
 * squid's main configuration: nothing is allowed but what allow.conf adds; nothing is cached.
 *
 * HTTPS is checked twice, with no interception. The sandboxes' port (3128) allows a CONNECT
 * by host and port, and refuses the rest with a plain 403. An allowed CONNECT is passed to the
 * same squid's inner port (127.0.0.1:3129, as a parent proxy), which peeks at the client hello
 * and splices it (passes the bytes through untouched) only when its SNI names an allowed host;
 * any other TLS connection is cut. Why two ports: on an ssl-bump port squid answers every
 * refused CONNECT by bumping the connection to show its error page over TLS with a certificate
 * of its own, so a refusal would look like a certificate error; here refusals stay plain 403s
 * and only already allowed CONNECTs meet the ssl-bump port, whose certificate is never shown.
 */
export function squidConf(confDir: string): string {
  const { cert, key } = proxyCertPaths(confDir);
  return `# Berth's egress proxy: HTTP and HTTPS CONNECT by host name and SNI, no TLS interception.
http_port ${PROXY_PORT}
http_port 127.0.0.1:${SNI_PORT} ssl-bump tls-cert=${cert} tls-key=${key} generate-host-certificates=off name=berth_sni_port
pid_filename /tmp/squid.pid
coredump_dir /tmp
cache deny all
cache_mem 0 MB
memory_pools off
pinger_enable off
${SQUID_THROUGHPUT}
via off
forwarded_for delete
httpd_suppress_version_string on
shutdown_lifetime 1 seconds
acl berth_inner myportname berth_sni_port
# Outer lines name the sandbox's address; inner lines the outer's port, with the SNI verdict.
logformat berth BERTH %ts.%03tu %>a %rm %>rd %>rP %Ss %>Hs %<st %>st %<lp
logformat berthsni BERTHSNI %>p %ssl::bump_mode %ssl::>sni
access_log stdio:/dev/stdout berth !berth_inner
access_log stdio:/dev/stdout berthsni berth_inner
cache_log stdio:/dev/stderr
logfile_rotate 0
acl CONNECT method CONNECT
cache_peer 127.0.0.1 parent ${SNI_PORT} 0 no-query no-digest no-netdb-exchange name=berth_sni_check
cache_peer_access berth_sni_check allow CONNECT !berth_inner
cache_peer_access berth_sni_check deny all
never_direct allow CONNECT !berth_inner
acl berth_never dst ${NEVER_REACHED.join(' ')}
http_access deny berth_never
# The inner port is on the proxy's own loopback: only the outer port's allowed CONNECTs get there.
http_access allow berth_inner CONNECT
# Berth's warm-up after each (re)start, from inside the proxy container (never a sandbox's address).
acl berth_self src 127.0.0.1
acl berth_warm dstdomain ${WARM_UP_HOST}
http_access allow berth_self berth_warm CONNECT
include ${confDir}/allow.conf
http_access deny all
acl berth_step1 at_step SslBump1
ssl_bump peek berth_step1
ssl_bump splice berth_sni
ssl_bump terminate all
# A CONNECT whose first bytes are not TLS (ssh to an allowed host:port, say): its host and
# port were allowed, so the bytes pass as a plain tunnel.
on_unsupported_protocol tunnel all
`;
}

/**
 * How squid moves a download: reads up to this far ahead of a slow client (its default 16 KB
 * stalls on every client pause), in large socket reads. Measured: bench/README.md.
 */
export const SQUID_THROUGHPUT = `read_ahead_gap 4 MB`;

/** One line of the proxy's access log, or null for anything else it prints. */
export interface ProxyLogLine {
  time: number;
  client: string;
  method: string;
  host: string;
  port: number | null;
  allowed: boolean;
  bytesIn: number;
  bytesOut: number;
  /** For a CONNECT passed to the SNI check: the port of that connection (parseSniLog's `port`). */
  sniCheckPort?: number;
}

export function parseProxyLog(line: string): ProxyLogLine | null {
  const m = /^BERTH (\d+)\.(\d{3}) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\d+) (\d+)(?: (\S+))?\s*$/.exec(line.trim());
  if (!m) return null;
  const [, sec, ms, client, method, host, port, squidStatus, , sent, received, peerPort] = m as unknown as string[];
  const portNum = Number(port);
  const viaPort = Number(peerPort);
  return {
    time: Number(sec) * 1000 + Number(ms),
    client: client as string,
    method: method as string,
    host: (host as string).replace(/^\[|\]$/g, ''),
    port: Number.isInteger(portNum) && portNum > 0 ? portNum : null,
    allowed: !/DENIED/.test(squidStatus as string),
    bytesIn: Number(sent),
    bytesOut: Number(received),
    ...(Number.isInteger(viaPort) && viaPort > 0 ? { sniCheckPort: viaPort } : {}),
  };
}

/** The inner port's verdict on a CONNECT's client hello, keyed by the outer port's connection. */
export interface SniVerdict {
  /** The outer port's local port for its connection to the inner one (the outer line's sniCheckPort). */
  port: number;
  refused: boolean;
  /** The name the client hello asked for ('-' when it sent none). */
  sni: string | null;
}

export function parseSniLog(line: string): SniVerdict | null {
  const m = /^BERTHSNI (\d+) (\S+) (\S+)\s*$/.exec(line.trim());
  if (!m) return null;
  return { port: Number(m[1]), refused: m[2] === 'terminate', sni: m[3] === '-' ? null : (m[3] as string) };
}

/** The entry "Allow this host" adds: the bare host for 80/443, host:port otherwise. */
export function allowEntryFor(host: string, port: number | null): string {
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  const entry = port === null || (DEFAULT_PORTS as readonly number[]).includes(port) ? name : `${name}:${port}`;
  const problem = egressEntryProblem(entry);
  if (problem) throw new Error(problem);
  return entry;
}

/** Docker names: the profile's proxy, its egress network, and a sandbox's own internal network. */
function slug(s: string): string {
  const base = s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 24) || 'x';
  return `${base}-${createHash('sha256').update(s).digest('hex').slice(0, 8)}`;
}
export function proxyContainerName(instanceId: string, profile: string): string {
  return `berth-egress-${instanceId.slice(0, 8)}-${slug(profile)}`;
}
export function sandboxNetworkName(instanceId: string, key: string): string {
  return `berth-sbx-${instanceId.slice(0, 8)}-${slug(key)}`;
}

/**
 * Environment for tools that honour proxy variables (both spellings: curl reads lower case).
 * Plain HTTP goes to HAProxy (fast bodies), HTTPS to squid (the SNI check); squid's port also
 * takes plain HTTP, with the same list, for tools given a single proxy.
 */
export function proxyEnv(): string[] {
  const url = `http://${PROXY_ALIAS}:${PROXY_PORT}`;
  const plain = `http://${PROXY_ALIAS}:${HTTP_PORT}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return [
    `HTTP_PROXY=${plain}`, `HTTPS_PROXY=${url}`, `http_proxy=${plain}`, `https_proxy=${url}`,
    `NO_PROXY=${noProxy}`, `no_proxy=${noProxy}`, 'BERTH_EGRESS=allowlist',
  ];
}

/** What the agent reads when a command of its ran into the policy. */
export function refusedNote(refused: readonly { host: string; port: number | null }[], profile: string): string {
  const list = [...new Set(refused.map((r) => (r.port ? `${r.host}:${r.port}` : r.host)))].slice(0, 10).join(', ');
  return `[Berth] The network policy of profile "${profile}" refused: ${list}. This sandbox reaches only the hosts in the profile's allowlist, through Berth's proxy. To allow one, the user clicks "Allow this host for the profile" in the chat's Network view, or adds it under Profiles → Network (egressAllow).`;
}

/*
 * Plain HTTP: HAProxy (Debian's), beside squid in the proxy container. Why a second proxy:
 * squid copies a response body to its client 4 KB at a time (HTTP_REQBUF_SZ, fixed when squid
 * is compiled), which held plain-HTTP downloads to ~0.34× of a direct one here; HAProxy
 * forwards bodies in large buffers with splice(2). HTTPS stays on squid (CONNECT + SNI).
 * The same allowlist, written as one anchored pattern per entry, decides both.
 */

/** The file HAProxy reads its allowlist patterns from (rewritten on each change, then reloaded). */
export const HTTP_ALLOW_FILE = 'http-allow.lst';

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One regular expression per entry, matched against the request's `host[:port]` (lower case):
 * `host` for an entry, any name under and including the domain for `*.domain`, and the entry's
 * ports (an entry without one: 80 and 443, like squid's). A name never matches an IP literal.
 */
export function httpAllowList(entries: readonly string[]): string {
  const lines = ['# Written by Berth from the profile setting egressAllow: host[:port] patterns.'];
  for (const rule of allowRules(entries)) {
    const wildcard = rule.domain.startsWith('.');
    const name = escapeRegex(wildcard ? rule.domain.slice(1) : rule.domain);
    const ports = rule.ports.map((p) => `:${p}`);
    // No port in the Host header means 80: allowed only when 80 is one of the entry's ports.
    const port = rule.ports.includes(80) ? `(${ports.join('|')})?` : `(${ports.join('|')})`;
    lines.push(`^${wildcard ? '([a-z0-9-]+\\.)*' : ''}${name}${port}$`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * HAProxy's configuration: a forward proxy for plain HTTP only. A request's host and port come
 * from its Host header (HAProxy refuses, with 400, an absolute URI whose authority differs from
 * it); refused: anything not in the list (403), an IP literal, a CONNECT (HTTPS goes to squid),
 * and a name that resolves to this computer or the LAN (NEVER_REACHED). Resolved with the
 * container's resolver (Docker's), connected to that address and port only.
 */
export function haproxyConf(confDir: string): string {
  const never = NEVER_REACHED.filter((a) => a.includes('.')).join(' ');
  return `# Berth's egress proxy for plain HTTP (HTTPS: squid on ${PROXY_PORT}).
global
  log stdout format raw local0
  maxconn 1024
  tune.bufsize 65536
  tune.pipesize 1048576
defaults
  mode http
  log global
  option splice-response
  option http-server-close
  timeout connect 10s
  timeout client 1h
  timeout server 1h
  timeout http-request 30s
  log-format "BERTHHTTP %Ts.%ms %ci %HM %[var(txn.host)] %[var(txn.port)] %ST %B %U"
resolvers docker
  parse-resolv-conf
  hold valid 10s
frontend berth_plain
  bind :${HTTP_PORT}
  http-request set-var(txn.host) req.hdr(host),lower,field(1,:)
  http-request set-var(txn.port) req.hdr(host),field(2,:)
  http-request set-var(txn.port) int(80) if !{ var(txn.port) -m found } || { var(txn.port) -m len 0 }
  http-request deny deny_status 403 if METH_CONNECT
  http-request deny deny_status 403 if { var(txn.host) -m reg ^[0-9.]+$ } || { var(txn.host) -m beg [ }
  http-request deny deny_status 403 unless { req.hdr(host),lower -m reg -f ${confDir}/${HTTP_ALLOW_FILE} }
  http-request do-resolve(txn.dstip,docker,ipv4) var(txn.host)
  http-request deny deny_status 502 unless { var(txn.dstip) -m found }
  http-request deny deny_status 403 if { var(txn.dstip) -m ip ${never} }
  http-request set-dst var(txn.dstip)
  http-request set-dst-port var(txn.port)
  http-request set-uri %[pathq]
  default_backend berth_out
backend berth_out
  server any 0.0.0.0:0
`;
}

/** HAProxy prints this (on stderr) once its worker listens, after a start or a reload. */
export const HTTP_READY_LINE = /Loading success/;

/** One line of HAProxy's access log as a ProxyLogLine (client's address, host, port, bytes). */
export function parseHttpLog(line: string): ProxyLogLine | null {
  const m = /^BERTHHTTP (\d+)\.(\d{3}) (\S+) (\S+) (\S+) (\S+) (\d+) (\d+) (\d+)\s*$/.exec(line.trim());
  if (!m) return null;
  const [, sec, ms, client, method, host, port, status, sent, received] = m as unknown as string[];
  // A request HAProxy could not read (<BADREQ>, no host): nothing a user could allow.
  if (host === '-' || method === '<BADREQ>') return null;
  const portNum = Number(port);
  return {
    time: Number(sec) * 1000 + Number(ms),
    client: client as string,
    method: method as string,
    host: host as string,
    port: Number.isInteger(portNum) && portNum > 0 ? portNum : null,
    // 403: the policy refused it; anything else was let through (a 502 is a name that did not resolve).
    allowed: status !== '403',
    bytesIn: Number(sent),
    bytesOut: Number(received),
  };
}

/**
 * Egress decisions without I/O: the proxies' configurations for a profile's allowlist, the entry
 * "Allow this host" adds, names of the egress networks and containers, and the proxy's log lines.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_PORTS, egressEntryProblem, RefusalReason, splitEntry } from '../../../shared/egress.js';
import { haproxyRefusalRule } from './egressRefusal.js';
import { haproxySshBackend, haproxySshRules } from './egressSsh.js';
import { coveredBy } from './localAddresses.js';

/** The sandboxes' proxy port (HAProxy): HTTPS CONNECT and plain HTTP; HTTPS_PROXY points here. */
export const PROXY_PORT = 3128;
/** HAProxy's plain-HTTP-only port (no CONNECT): HTTP_PROXY points here. */
export const HTTP_PORT = 3130;
/** The proxy's name on every sandbox network: HTTP(S)_PROXY points here. */
export const PROXY_ALIAS = 'berth-egress-proxy';

/**
 * Destinations the proxy never connects to, whatever name resolved to them: loopback, the LAN's
 * and link-local (cloud metadata) ranges. An allowed name cannot be pointed at them. This
 * computer's other addresses (a public one, a Docker bridge's gateway outside these ranges) are
 * added as they are found (neverReachedFiles).
 */
export const NEVER_REACHED = [
  '0.0.0.0/8', '127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10',
  '::1', 'fc00::/7', 'fe80::/10',
];

/** The files the proxy reads its never-reached addresses from (rewritten on each change, then reloaded). */
export const NEVER_FILES = { squid: 'never.conf', http: 'never.lst' } as const;

/**
 * NEVER_REACHED and this computer's own addresses (policy/localAddresses.ts) as squid's include
 * file (`acl berth_never dst`) and HAProxy's pattern file (`-m ip -f`, IPv4: HAProxy resolves
 * IPv4 only). A service of this computer on 0.0.0.0 answers on every one of its addresses, and
 * the proxy reaches those that are not private through its default route: a name allowed for
 * the internet, pointed by its DNS at one of them, would reach it.
 */
export function neverReachedFiles(local: readonly string[]): { squid: string; http: string } {
  const all = [...NEVER_REACHED, ...local.filter((a) => !coveredBy(a, NEVER_REACHED))];
  const head = '# Written by Berth: loopback, private and link-local ranges, and this computer\'s own addresses.';
  return {
    squid: `${[head, ...all.map((a) => `acl berth_never dst ${a}`)].join('\n')}\n`,
    http: `${[head, ...all.filter((a) => a.includes('.'))].join('\n')}\n`,
  };
}

/**
 * How many connections one sandbox may hold at the profile's shared proxy at once. The proxy
 * serves every chat of a profile (HAProxy's maxconn 1024 in all); without a limit per sandbox
 * one chat's ~1,100 idle half-sent requests held every place and the other chats' requests
 * waited up to the request timeout or failed. 64: what busy clients open at most — a browser 6
 * per host, npm 15 per origin (its maxsockets), pnpm 16 and yarn 50 (their network concurrency)
 * — with room to spare; it takes 16 chats at their limit at once to fill the proxy.
 */
export const SANDBOX_CONNECTIONS = 64;

export interface AllowRule {
  /** squid's dstdomain form: `.example.com` for `*.example.com` (the domain and every name under it). */
  domain: string;
  ports: readonly number[];
  /** An HTTP-only rule's methods (plain HTTP, no tunnel); null: every method, and HTTPS. */
  methods: readonly string[] | null;
}

export function allowRules(entries: readonly string[]): AllowRule[] {
  return entries.map((entry) => {
    const problem = egressEntryProblem(entry);
    if (problem) throw new Error(problem);
    const { target, methods } = splitEntry(entry);
    const m = /^(\*\.)?([^:]+)(?::(\d+))?$/.exec(target) as RegExpExecArray;
    return { domain: (m[1] ? '.' : '') + (m[2] as string), ports: m[3] ? [Number(m[3])] : DEFAULT_PORTS, methods };
  });
}

/**
 * The include file squid reads on each reconfigure: per entry, an acl pair and an allow line
 * for the request (CONNECT's host, or the plain request's) and the entry's names for the TLS
 * check of a CONNECT's client hello (SNI).
 *
 * `berth_sni` holds when the CONNECT's host and port and the SNI all match one and the same
 * entry (squid ORs `all-of` lines of one name). Matching the SNI against the whole list would
 * let a tunnel opened for one allowed name carry TLS for another (domain fronting between
 * allowed hosts); squid has no acl that compares the SNI with the CONNECT's host, so this is
 * as close as it gets: for a plain host entry the two must be equal, for `*.domain` both must
 * be under that domain.
 */
export function squidAllowConf(entries: readonly string[]): string {
  const lines = [
    '# Written by Berth from the profile setting egressAllow.',
    '# Never matches: the SNI acl exists even for an empty list.',
    'acl berth_sni_none ssl::server_name berth.invalid',
    'acl berth_sni all-of berth_sni_none',
  ];
  // An HTTP-only rule never opens a tunnel (squid sees CONNECTs only): its methods could not be seen in it.
  allowRules(entries).filter((rule) => rule.methods === null).forEach((rule, i) => {
    // -n: never match an IP-literal request through a reverse lookup of its address.
    lines.push(`acl berth_host_${i} dstdomain -n ${rule.domain}`);
    lines.push(`acl berth_port_${i} port ${rule.ports.join(' ')}`);
    lines.push(`http_access allow berth_host_${i} berth_port_${i}`);
    lines.push(`acl berth_sni_${i} ssl::server_name ${rule.domain}`);
    lines.push(`acl berth_sni all-of berth_host_${i} berth_port_${i} berth_sni_${i}`);
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

/** squid's port, on the proxy's own loopback only: where HAProxy passes allowed CONNECTs for the SNI check. */
export const SNI_PORT = 3129;

/**
 * The proxy's layout (which program listens where, what the logs say). A proxy container left
 * running by a Berth with another layout is replaced, not reused.
 */
export const PROXY_LAYOUT = '7';

/** Where the proxy keeps SNI_MATCH_HELPER (written when it starts). */
export function sniHelperPath(confDir: string): string {
  return `${confDir}/sni-match.pl`;
}

/**
 * squid's external acl helper that says whether a tunnel's SNI is exactly its CONNECT's host.
 * squid has no built-in acl that compares two names of one request (its ssl::server_name also
 * falls back to the CONNECT's host when the client hello has no SNI), so this few-line perl
 * filter does it: per line `SNI HOST` (squid's %-encoding, `-` for none), `OK` when the SNI is
 * there and names the host (case and a trailing dot aside), `ERR` otherwise. perl-base is in
 * every Debian image, so the proxy image does not change.
 */
export const SNI_MATCH_HELPER = `$| = 1;
while (my $line = <STDIN>) {
  chomp $line;
  my ($sni, $host) = map { my $v = lc($_ // ''); $v =~ s/%([0-9a-f]{2})/chr(hex($1))/ge; $v =~ s/\\.$//; $v } split(/ /, $line);
  print(($sni ne '' && $sni ne '-' && $sni eq $host) ? "OK\\n" : "ERR\\n");
}
`;

/**
 * squid's configuration: the SNI check of HTTPS tunnels, with no interception. HAProxy (the
 * sandboxes' ports, haproxyConf) has already allowed the CONNECT by host and port; it passes
 * it to this loopback-only ssl-bump port, which peeks at the client hello and splices it
 * (passes the bytes through untouched) only when its SNI is the CONNECT's own host and matches
 * the same allowlist entry as that host and port; any other TLS connection is cut. Why the check is squid's and the rest HAProxy's: on an ssl-bump port squid
 * answers a refused CONNECT by bumping the connection to show its error page over TLS with a
 * certificate of its own (a refusal would look like a certificate error), and it copies
 * tunnels in its one thread; HAProxy refuses with a plain 403 and copies with splice(2). squid
 * still refuses here whatever the allowlist does not name, and this computer's and the LAN's
 * addresses whatever the name resolves to, as it connects: nothing is allowed on a word from
 * HAProxy alone.
 */
export function squidConf(confDir: string): string {
  const { cert, key } = proxyCertPaths(confDir);
  return `# Berth's egress proxy, the SNI check: CONNECTs from HAProxy only, no TLS interception.
http_port 127.0.0.1:${SNI_PORT} ssl-bump tls-cert=${cert} tls-key=${key} generate-host-certificates=off
pid_filename /tmp/squid.pid
coredump_dir /tmp
cache deny all
cache_mem 0 MB
memory_pools off
pinger_enable off
via off
forwarded_for delete
httpd_suppress_version_string on
shutdown_lifetime 1 seconds
# Each tunnel's SNI verdict, by HAProxy's port for it (HAProxy's line names the sandbox and bytes).
logformat berthsni BERTHSNI %>p %ssl::bump_mode %ssl::>sni
access_log stdio:/dev/stdout berthsni
cache_log stdio:/dev/stderr
logfile_rotate 0
acl CONNECT method CONNECT
acl berth_haproxy src 127.0.0.1
include ${confDir}/${NEVER_FILES.squid}
http_access deny !berth_haproxy
http_access deny !CONNECT
http_access deny berth_never
include ${confDir}/allow.conf
http_access deny all
# The SNI must be there and be the CONNECT's own host (SNI_MATCH_HELPER), besides matching the
# same allowlist entry as that host and port (berth_sni, allow.conf).
external_acl_type berth_sni_match ttl=60 negative_ttl=60 children-max=2 children-startup=1 %ssl::>sni %DST /usr/bin/perl ${sniHelperPath(confDir)}
acl berth_sni_is_host external berth_sni_match
acl berth_step1 at_step SslBump1
ssl_bump peek berth_step1
ssl_bump splice berth_sni berth_sni_is_host
ssl_bump terminate all
# A CONNECT whose first bytes are not TLS (ssh to an allowed host:port, say): its host and
# port were allowed, so the bytes pass as a plain tunnel.
on_unsupported_protocol tunnel all
`;
}

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
  /** For a CONNECT passed to the SNI check: HAProxy's port for that connection (parseSniLog's `port`). */
  sniCheckPort?: number;
  /** Why HAProxy refused it (its txn.why), for a refusal of its own rules. */
  reason?: RefusalReason;
}

/** squid's verdict on a CONNECT's client hello, keyed by HAProxy's connection to squid. */
export interface SniVerdict {
  /** HAProxy's local port for its connection to squid (HAProxy's line's sniCheckPort). */
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
 * Both name HAProxy: HTTPS its CONNECT port (which also takes plain HTTP, for tools given a
 * single proxy), plain HTTP its port that refuses CONNECT.
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

/** The same variables as a build's arguments (an image build on a sealed network: RUN steps read them). */
export function proxyBuildArgs(): Record<string, string> {
  return Object.fromEntries(proxyEnv().map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

/*
 * HAProxy (Debian's) decides every request by host and port: plain HTTP, which it forwards
 * itself, and HTTPS CONNECT, which it passes to squid's loopback port for the SNI check (squid
 * splices the tunnel; HAProxy copies it to the sandbox). Why HAProxy in front: squid copies a
 * plain response body 4 KB at a time (HTTP_REQBUF_SZ, fixed when squid is compiled) and every
 * tunnel through its one thread, twice when it had to pass CONNECTs from a plain port to its
 * ssl-bump port; HAProxy moves bytes with splice(2) in its own threads, so squid copies each
 * tunnel once. The same allowlist, written as one anchored pattern per entry, decides both.
 */

/** The file HAProxy reads its allowlist patterns from (rewritten on each change, then reloaded). */
export const HTTP_ALLOW_FILE = 'http-allow.lst';
/** Its chats' own allowances: `sandbox-address@host:port` patterns (policy/egressGrants.ts). */
export const CHAT_ALLOW_FILE = 'chat-allow.lst';

export const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One regular expression per entry, matched against the request's `METHOD/host[:port]` (host in
 * lower case; HAProxy's txn.req): `host` for an entry, any name under and including the domain
 * for `*.domain`, and the entry's ports (an entry without one: 80 and 443, like squid's); any
 * method, CONNECT too, for an entry without methods, and only its methods for an HTTP-only rule.
 * An HTTP-only rule also matches `@/host[:port]` (txn.probe; `@` is never in a method), which
 * tells a refused method (reason `method`) from an unlisted host. A name never matches an IP literal.
 */
export function httpAllowList(entries: readonly string[]): string {
  const lines = ['# Written by Berth from the profile setting egressAllow: METHOD/host[:port] patterns.'];
  for (const entry of entries) {
    const { methods } = splitEntry(entry);
    lines.push(`^${methods === null ? '[^@/]+' : `(${[...methods, '@'].join('|')})`}/${entryPattern(entry)}$`);
  }
  return `${lines.join('\n')}\n`;
}

/** One entry's `host[:port]` pattern, unanchored (httpAllowList's, and a chat's own after its address). */
export function entryPattern(entry: string): string {
  const [rule] = allowRules([entry]) as [AllowRule];
  const wildcard = rule.domain.startsWith('.');
  const name = escapeRegex(wildcard ? rule.domain.slice(1) : rule.domain);
  const ports = rule.ports.map((p) => `:${p}`);
  // No port in the Host header means 80: allowed only when 80 is one of the entry's ports.
  const port = rule.ports.includes(80) ? `(${ports.join('|')})?` : `(${ports.join('|')})`;
  return `${wildcard ? '([a-z0-9-]+\\.)*' : ''}${name}${port}`;
}

/**
 * HAProxy's configuration: the sandboxes' ports. A request's host and port: a CONNECT's
 * authority (`host:port`, a port required; on PROXY_PORT only), a plain request's Host header
 * (HAProxy refuses, with 400, an absolute URI whose authority differs from it). Refused with a
 * plain 403: anything not in the list, an IP literal, and a name that resolves to this computer
 * or the LAN (neverReachedFiles), before any connection is made. Plain HTTP is then connected to
 * the address the name resolved to (the container's resolver, Docker's), on that port; an
 * allowed CONNECT goes to squid (SNI_PORT), which checks the client hello and the address again.
 */
export function haproxyConf(confDir: string, profile: string): string {
  return `# Berth's egress proxy: HTTP and HTTPS CONNECT by host and port (the SNI check: squid on ${SNI_PORT}).
global
  log stdout format raw local0
  maxconn 1024
  # One thread: a download is one stream, and a second thread only added cross-thread wake-ups
  # (measured ~10-15% more CPU per GB moved; bench/README.md).
  nbthread 1
  tune.bufsize 65536
  tune.pipesize 1048576
defaults
  mode http
  log global
  option splice-request
  option splice-response
  timeout connect 10s
  timeout client 1h
  timeout server 1h
  timeout tunnel 1h
  # A client sends a request's head in one go; 10 s is ample on a slow link, and a half-sent
  # one holds a place (and a buffer) no longer than that.
  timeout http-request 10s
  log-format "BERTHHTTP %Ts.%ms %ci %HM %[var(txn.host)] %[var(txn.port)] %ST %B %U %bp %[var(txn.why)]"
resolvers docker
  parse-resolv-conf
  hold valid 10s
frontend berth_proxy
  bind :${PROXY_PORT}
  bind :${HTTP_PORT}
  # Each sandbox has an address of its own on its sealed network: at most SANDBOX_CONNECTIONS
  # at once from one, so one chat cannot take every place of the profile's proxy.
  stick-table type ip size 16k expire 10m store conn_cur
  tcp-request connection track-sc0 src
  tcp-request connection reject if { sc0_conn_cur gt ${SANDBOX_CONNECTIONS} }
  http-request deny deny_status 403 if METH_CONNECT { dst_port ${HTTP_PORT} }
  http-request deny deny_status 403 if METH_CONNECT !{ url -m reg ^[^:/]+:[0-9]+$ }
  http-request set-var(txn.authority) url,lower if METH_CONNECT
  http-request set-var(txn.authority) req.hdr(host),lower unless METH_CONNECT
  http-request set-var(txn.host) var(txn.authority),field(1,:)
  http-request set-var(txn.port) var(txn.authority),field(2,:)
  http-request set-var(txn.port) int(80) if !{ var(txn.port) -m found } || { var(txn.port) -m len 0 }
  # Each refusal answers with X-Berth-Refused and a sentence saying why (policy/egressRefusal.ts).
  http-request set-var(txn.why) str(ip-address) if { var(txn.host) -m reg ^[0-9.]+$ } || { var(txn.host) -m beg [ }
  ${haproxyRefusalRule('ip-address', profile)}
  # A chat's own allowances: its sandbox's address, '@', then host:port (CHAT_ALLOW_FILE).
  http-request set-var(txn.who) src,concat(@,txn.authority)
  # The profile's list by method and host:port (HTTP-only rules name their methods: httpAllowList).
  http-request set-var(txn.req) method,concat(/,txn.authority)
  http-request set-var(txn.probe) str(@),concat(/,txn.authority)
  http-request set-var(txn.why) str(not-listed) unless { var(txn.req) -m reg -f ${confDir}/${HTTP_ALLOW_FILE} } || { var(txn.who) -m reg -f ${confDir}/${CHAT_ALLOW_FILE} }
  http-request set-var(txn.why) str(method) if { var(txn.why) -m str not-listed } { var(txn.probe) -m reg -f ${confDir}/${HTTP_ALLOW_FILE} }
  ${haproxyRefusalRule('not-listed', profile)}
  ${haproxyRefusalRule('method', profile)}
  http-request do-resolve(txn.dstip,docker,ipv4) var(txn.host)
  http-request deny deny_status 502 unless { var(txn.dstip) -m found }
  http-request set-var(txn.why) str(local-address) if { var(txn.dstip) -m ip -f ${confDir}/${NEVER_FILES.http} }
  ${haproxyRefusalRule('local-address', profile)}
  http-request set-dst var(txn.dstip) unless METH_CONNECT
  http-request set-dst-port var(txn.port) unless METH_CONNECT
  http-request set-uri %[pathq] unless METH_CONNECT
  ${haproxySshRules()}
  use_backend berth_sni if METH_CONNECT
  default_backend berth_out
backend berth_out
  # One request per connection: the next may name another host (set-dst).
  option http-server-close
  server any 0.0.0.0:0
backend berth_sni
  server squid 127.0.0.1:${SNI_PORT}
${haproxySshBackend()}`;
}

/** HAProxy prints this (on stderr) once its worker listens, after a start or a reload. */
export const HTTP_READY_LINE = /Loading success/;

/**
 * One line of HAProxy's access log as a ProxyLogLine (client's address, host, port, bytes; for
 * a CONNECT passed to squid, HAProxy's port for that connection, to match squid's SNI verdict).
 */
export function parseHttpLog(line: string): ProxyLogLine | null {
  const m = /^BERTHHTTP (\d+)\.(\d{3}) (\S+) (\S+) (\S+) (\S+) (\d+) (\d+) (\d+)(?: (\S+))?(?: (\S+))?\s*$/.exec(line.trim());
  if (!m) return null;
  const [, sec, ms, client, method, host, port, status, sent, received, backendPort, why] = m as unknown as string[];
  const reason = RefusalReason.safeParse(why);
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
    ...(method === 'CONNECT' && Number(backendPort) > 0 ? { sniCheckPort: Number(backendPort) } : {}),
    ...(status === '403' && reason.success ? { reason: reason.data } : {}),
  };
}

/** Why Podman cannot have the allowlist, said wherever it is refused (here, and engine/podmanNetworks.ts when Podman is found only by asking). */
export const PODMAN_UNSEALED =
  'networks cannot be sealed the way the allowlist needs (a bridge without an address on the host), so a sandbox could reach this computer around the proxy';

/**
 * Why a profile cannot have the allowlist on its engine, or null. The allowlist's proxy runs on
 * this computer's Docker engine and seals each sandbox in a Docker bridge with no address on the
 * host: a remote engine's sandboxes cannot reach that proxy, and Podman's bridges cannot be sealed
 * that way. Said when the profile is saved (core.ts) and, for a setting saved before this check or
 * an engine found to be Podman only when asked, when a sandbox starts (sandboxContainers.ts).
 */
export function allowlistEngineProblem(egress: string, engine: { kind: string; remote: boolean; label: string }): { message: string; hint: string } | null {
  if (egress !== 'allowlist') return null;
  const why = engine.remote
    ? `its proxy runs here, and the engine at ${engine.label} is another machine whose sandboxes cannot reach it`
    : engine.kind === 'podman'
      ? `Podman's ${PODMAN_UNSEALED}`
      : null;
  if (why === null) return null;
  return { message: `The allowlist network needs this computer's Docker engine: ${why}.`, hint: 'Set Network to "None" or "Open" for this engine, or run the profile on this computer\'s Docker.' };
}

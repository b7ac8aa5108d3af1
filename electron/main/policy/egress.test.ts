import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { allowEntryFor, EgressAllowEntry, egressEntryProblem, isIpAddress } from '../../../shared/egress.js';
import { allowlistEngineProblem, haproxyConf, neverReachedFiles, SANDBOX_CONNECTIONS, httpAllowList, parseHttpLog, parseSniLog, proxyEnv, SNI_MATCH_HELPER, squidAllowConf, squidConf } from './egress.js';

describe('egressAllow entries', () => {
  it('takes host, *.domain and either with :port, lower-cased', () => {
    for (const ok of ['github.com', '*.npmjs.org', 'registry.local:8443', '*.example.co.uk:443', 'localhost']) expect(egressEntryProblem(ok), ok).toBeNull();
    expect(EgressAllowEntry.parse(' GitHub.com ')).toBe('github.com');
  });

  it('refuses IP literals, bare or misplaced wildcards, bad ports and anything squid could read as more config', () => {
    for (const bad of ['10.0.0.1', '127.0.0.1:80', '[::1]', '*', '*.com', 'a.*.com', 'host:0', 'host:70000', 'a b', 'x\nhttp_access allow all', '-n', 'a..b', '.github.com']) {
      expect(egressEntryProblem(bad), bad).not.toBeNull();
    }
  });

  it('tells an address from a host name spelled with hex digits (the Network view offers "Allow" for those)', () => {
    for (const ip of ['1.1.1.1', '10.0.0.1', '[2001:db8::1]', '2001:db8::1', '::1', '[::ffff:10.0.0.1]']) expect(isIpAddress(ip), ip).toBe(true);
    for (const host of ['deb.de', 'cafe.be', 'add.ad', 'allowed.test', 'localhost', '1password.com']) expect(isIpAddress(host), host).toBe(false);
  });
});

describe('squid configuration', () => {
  it('allows each entry only on its ports (80 and 443 by default), with no reverse lookups of IP literals', () => {
    const conf = squidAllowConf(['github.com', '*.npmjs.org', 'registry.local:8443']);
    expect(conf).toContain('acl berth_host_0 dstdomain -n github.com\nacl berth_port_0 port 80 443\nhttp_access allow berth_host_0 berth_port_0');
    expect(conf).toContain('acl berth_host_1 dstdomain -n .npmjs.org');
    expect(conf).toContain('acl berth_host_2 dstdomain -n registry.local\nacl berth_port_2 port 8443');
    expect(squidAllowConf([])).not.toContain('http_access');
  });

  it('checks the SNI of every CONNECT against the entry its host matched: peek, splice the allowed, cut the rest (no interception)', () => {
    const allow = squidAllowConf(['github.com', '*.npmjs.org']);
    expect(allow).toContain('acl berth_sni_0 ssl::server_name github.com\nacl berth_sni all-of berth_host_0 berth_port_0 berth_sni_0');
    expect(allow).toContain('acl berth_sni_1 ssl::server_name .npmjs.org\nacl berth_sni all-of berth_host_1 berth_port_1 berth_sni_1');
    // Never an SNI acl for the whole list (an SNI of one allowed host inside a CONNECT to another).
    expect(allow).not.toMatch(/acl berth_sni ssl::server_name/);
    // An empty list still defines the acl (squid refuses an unknown one), matching nothing real.
    expect(squidAllowConf([])).toContain('acl berth_sni_none ssl::server_name berth.invalid\nacl berth_sni all-of berth_sni_none');
    const conf = squidConf('/tmp/berth');
    // squid listens only on the proxy's loopback (HAProxy passes it the allowed CONNECTs), and
    // only for CONNECTs from there; it peeks and splices.
    expect(conf.match(/^http_port .*/gm)).toEqual([expect.stringMatching(/^http_port 127\.0\.0\.1:3129 ssl-bump .*generate-host-certificates=off$/)]);
    expect(conf.indexOf('http_access deny !berth_haproxy')).toBeLessThan(conf.indexOf('include /tmp/berth/allow.conf'));
    expect(conf.indexOf('http_access deny !CONNECT')).toBeLessThan(conf.indexOf('include /tmp/berth/allow.conf'));
    const peek = conf.indexOf('ssl_bump peek berth_step1');
    const splice = conf.indexOf('ssl_bump splice berth_sni berth_sni_is_host\n');
    // The only splice also needs the helper's word that the SNI is the CONNECT's own host.
    expect(conf.match(/^ssl_bump splice .*/gm)).toHaveLength(1);
    expect(conf).toContain('external_acl_type berth_sni_match ttl=60 negative_ttl=60 children-max=2 children-startup=1 %ssl::>sni %DST /usr/bin/perl /tmp/berth/sni-match.pl\nacl berth_sni_is_host external berth_sni_match');
    const terminate = conf.indexOf('ssl_bump terminate all');
    expect(peek).toBeGreaterThan(0);
    expect(splice).toBeGreaterThan(peek);
    expect(terminate).toBeGreaterThan(splice);
    expect(conf).not.toMatch(/ssl_bump (bump|stare)/);
  });

  it("the SNI helper (run by this computer's perl, as squid runs it) says OK only for an SNI that is the CONNECT's host", () => {
    const lines = ['allowed.test allowed.test', 'Allowed.Test. allowed.test', '%61llowed.test allowed.test', '- allowed.test', 'other.test allowed.test', 'allowed.test.evil allowed.test', ''];
    const out = execFileSync('perl', ['-e', SNI_MATCH_HELPER], { input: `${lines.join('\n')}\n`, encoding: 'utf8' });
    expect(out.split('\n').slice(0, lines.length)).toEqual(['OK', 'OK', 'OK', 'ERR', 'ERR', 'ERR', 'ERR']);
  });

  it('refuses this computer, the LAN and link-local before any allow, and everything else after', () => {
    const conf = squidConf('/tmp/berth');
    const never = conf.indexOf('http_access deny berth_never');
    const include = conf.indexOf('include /tmp/berth/allow.conf');
    expect(conf.indexOf('include /tmp/berth/never.conf')).toBeLessThan(never);
    const denyAll = conf.indexOf('http_access deny all');
    expect(never).toBeGreaterThan(0);
    expect(include).toBeGreaterThan(never);
    expect(denyAll).toBeGreaterThan(include);
    expect(conf).toContain('cache deny all');
  });
});

describe('addresses never reached', () => {
  it("lists the private ranges and this computer's other addresses for both programs, HAProxy's IPv4 only", () => {
    const files = neverReachedFiles(['192.0.2.2', '198.18.7.1', '2001:db8::5']);
    for (const range of ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '192.0.2.2', '198.18.7.1', '2001:db8::5']) {
      expect(files.squid, range).toContain(`acl berth_never dst ${range}\n`);
    }
    expect(files.http.split('\n')).toEqual(expect.arrayContaining(['127.0.0.0/8', '169.254.0.0/16', '192.0.2.2', '198.18.7.1']));
    expect(files.http).not.toContain('2001:db8::5');
    // squid refuses an acl with no value: there is always one.
    expect(neverReachedFiles([]).squid).toContain('acl berth_never dst 127.0.0.0/8\n');
  });

  it('leaves out addresses a private range already holds, so bridges there change nothing', () => {
    expect(neverReachedFiles(['10.213.0.1', '172.17.0.1', '127.0.0.1', 'fe80::1', 'fd00::1'])).toEqual(neverReachedFiles([]));
  });
});

describe("squid's SNI verdicts", () => {
  it('reads the splice or the cut of each tunnel, by HAProxy\'s port to squid, and ignores anything else', () => {
    expect(parseSniLog('BERTHSNI 43566 splice allowed.test')).toEqual({ port: 43566, refused: false, sni: 'allowed.test' });
    expect(parseSniLog('BERTHSNI 43570 terminate blocked.test')).toEqual({ port: 43570, refused: true, sni: 'blocked.test' });
    expect(parseSniLog('BERTHSNI 43571 terminate -')).toEqual({ port: 43571, refused: true, sni: null });
    expect(parseSniLog('2026/11/30 21:02:06| Accepting SSL bumped HTTP Socket connections')).toBeNull();
  });
});

describe('plain HTTP (HAProxy)', () => {
  const patterns = (entries: string[]) => httpAllowList(entries).split('\n').filter((l) => l && !l.startsWith('#')).map((l) => new RegExp(l));
  /** HAProxy's txn.req: the method, '/', the request's host[:port]. */
  const allows = (entries: string[], hostHeader: string, method = 'GET') => patterns(entries).some((re) => re.test(`${method}/${hostHeader}`));

  it('allows each entry by name and port, like squid: 80 and 443 by default, a wildcard\'s domain and names under it', () => {
    expect(allows(['allowed.test'], 'allowed.test')).toBe(true);
    expect(allows(['allowed.test'], 'allowed.test:80')).toBe(true);
    expect(allows(['allowed.test'], 'allowed.test:8080')).toBe(false);
    expect(allows(['allowed.test'], 'xallowed.test')).toBe(false);
    expect(allows(['allowed.test'], 'allowed.test.evil')).toBe(false);
    expect(allows(['allowed.test'], 'allowedxtest')).toBe(false);
    expect(allows(['reg.test:8080'], 'reg.test:8080')).toBe(true);
    expect(allows(['reg.test:8080'], 'reg.test')).toBe(false);
    expect(allows(['*.example.com'], 'example.com')).toBe(true);
    expect(allows(['*.example.com'], 'a.b.example.com')).toBe(true);
    expect(allows(['*.example.com'], 'badexample.com')).toBe(false);
    expect(allows([], 'allowed.test')).toBe(false);
    expect(allows(['allowed.test'], 'allowed.test:443', 'CONNECT')).toBe(true);
    expect(allows(['allowed.test'], 'allowed.test', 'POST')).toBe(true);
  });

  it('an HTTP-only rule (host GET,HEAD) lets only its methods through, never a tunnel; its probe tells a refused method from an unlisted host', () => {
    const list = ['other.test GET,HEAD'];
    expect(allows(list, 'other.test', 'GET')).toBe(true);
    expect(allows(list, 'other.test:80', 'HEAD')).toBe(true);
    expect(allows(list, 'other.test', 'POST')).toBe(false);
    expect(allows(list, 'other.test', 'get')).toBe(false);
    expect(allows(list, 'other.test:443', 'CONNECT')).toBe(false);
    expect(allows(list, 'another.test', 'GET')).toBe(false);
    // txn.probe ('@' is never in a method): found for the HTTP-only rule's host only.
    expect(allows(list, 'other.test', '@')).toBe(true);
    expect(allows(['allowed.test'], 'allowed.test', '@')).toBe(false);
    expect(allows(list, 'another.test', '@')).toBe(false);
    // squid, which sees only tunnels, never hears of it.
    expect(squidAllowConf(['other.test GET,HEAD', 'allowed.test'])).not.toContain('other.test');
    const conf = haproxyConf('/tmp/berth', 'work');
    expect(conf).toContain('http-request set-var(txn.req) method,concat(/,txn.authority)');
    expect(conf).toContain('http-request set-var(txn.why) str(method) if { var(txn.why) -m str not-listed } { var(txn.probe) -m reg -f /tmp/berth/http-allow.lst }');
    expect(conf).toMatch(/hdr X-Berth-Refused method lf-string "Berth's egress proxy refused %\[method\] to %\[var\(txn\.host\)\]:%\[var\(txn\.port\)\]/);
  });

  it('refuses IP literals, CONNECT on the plain port and this computer\'s and the LAN\'s addresses before connecting; reads the list from its file', () => {
    const conf = haproxyConf('/tmp/berth', 'work');
    expect(conf).toContain('bind :3128\n');
    expect(conf).toContain('bind :3130\n');
    expect(conf).toContain('http-request deny deny_status 403 if METH_CONNECT { dst_port 3130 }');
    // A CONNECT names host:port, a port required; IPv6 literals never match.
    expect(conf).toContain('http-request deny deny_status 403 if METH_CONNECT !{ url -m reg ^[^:/]+:[0-9]+$ }');
    expect(conf).toMatch(/set-var\(txn\.why\) str\(ip-address\) if \{ var\(txn\.host\) -m reg \^\[0-9\.\]\+\$ \}/);
    expect(conf).toContain('-m reg -f /tmp/berth/http-allow.lst');
    expect(conf).toContain('http-request set-var(txn.why) str(local-address) if { var(txn.dstip) -m ip -f /tmp/berth/never.lst }');
    // Each reason is answered (a 403 with X-Berth-Refused) right after it is found.
    for (const reason of ['ip-address', 'not-listed', 'local-address']) {
      expect(conf.indexOf(`hdr X-Berth-Refused ${reason} `)).toBeGreaterThan(conf.indexOf(`str(${reason})`));
    }
    // The decision comes before the address is set: nothing is connected to before it.
    expect(conf.indexOf('-f /tmp/berth/http-allow.lst')).toBeLessThan(conf.indexOf('set-dst var'));
    expect(conf.indexOf('-m ip')).toBeLessThan(conf.indexOf('set-dst var'));
  });

  it(`holds at most ${SANDBOX_CONNECTIONS} connections from one sandbox (its own address), refusing the rest as they come`, () => {
    const conf = haproxyConf('/tmp/berth', 'work');
    expect(conf).toContain('tcp-request connection track-sc0 src\n');
    expect(conf).toContain(`tcp-request connection reject if { sc0_conn_cur gt ${SANDBOX_CONNECTIONS} }\n`);
    expect(conf).toMatch(/stick-table type ip size \d+k expire \d+m store conn_cur\n/);
    // A half-sent request holds its place no longer than this.
    expect(conf).toContain('timeout http-request 10s\n');
    expect(SANDBOX_CONNECTIONS).toBeLessThan(1024 / 8);
  });

  it('passes an allowed CONNECT, decided the same way, to squid on its loopback for the SNI check; plain HTTP to the resolved address', () => {
    const conf = haproxyConf('/tmp/berth', 'work');
    expect(conf).toContain('http-request set-var(txn.authority) url,lower if METH_CONNECT');
    expect(conf).toContain('use_backend berth_sni if METH_CONNECT');
    expect(conf).toMatch(/backend berth_sni\n {2}server squid 127\.0\.0\.1:3129\n/);
    // The decisions come before the CONNECT is passed on.
    for (const rule of ['-f /tmp/berth/http-allow.lst', '-m ip ', 'deny_status 502']) expect(conf.indexOf(rule)).toBeLessThan(conf.indexOf('use_backend berth_sni'));
    // The plain request's rewrites never touch a CONNECT.
    expect(conf).toContain('http-request set-uri %[pathq] unless METH_CONNECT');
    expect(conf).toContain('http-request set-dst var(txn.dstip) unless METH_CONNECT');
  });

  it('reads its log lines with bytes, a 403 as refused, and skips unreadable requests', () => {
    expect(parseHttpLog('BERTHHTTP 1796104729.809 10.213.0.2 GET allowed.test 80 200 209715322 139')).toEqual({
      time: 1796104729809, client: '10.213.0.2', method: 'GET', host: 'allowed.test', port: 80, allowed: true, bytesIn: 209715322, bytesOut: 139,
    });
    expect(parseHttpLog('BERTHHTTP 1796104730.000 10.213.0.2 GET blocked.test 8080 403 192 134')?.allowed).toBe(false);
    expect(parseHttpLog('BERTHHTTP 1796104730.000 10.213.0.2 <BADREQ> - - 400 0 0')).toBeNull();
    expect(parseHttpLog('BERTHSNI 43566 splice allowed.test')).toBeNull();
    // A CONNECT names HAProxy's port to squid, to meet squid's SNI verdict; a plain request does not.
    expect(parseHttpLog('BERTHHTTP 1796122210.757 10.213.0.35 CONNECT allowed.test 443 200 2129 834 43566')).toEqual({
      time: 1796122210757, client: '10.213.0.35', method: 'CONNECT', host: 'allowed.test', port: 443, allowed: true, bytesIn: 2129, bytesOut: 834, sniCheckPort: 43566,
    });
    expect(parseHttpLog('BERTHHTTP 1796122210.907 10.213.0.35 GET allowed.test 80 200 145 124 45776')?.sniCheckPort).toBeUndefined();
    expect(parseHttpLog('BERTHHTTP 1796122210.907 10.213.0.35 CONNECT blocked.test 443 403 192 115 -')?.allowed).toBe(false);
    // HAProxy's reason for a refusal of its own rules; none for an allowed request.
    expect(parseHttpLog('BERTHHTTP 1796122210.907 10.213.0.35 CONNECT blocked.test 443 403 192 115 - not-listed')?.reason).toBe('not-listed');
    expect(parseHttpLog('BERTHHTTP 1796122210.907 10.213.0.35 GET 198.18.0.5 80 403 192 115 - ip-address')?.reason).toBe('ip-address');
    expect(parseHttpLog('BERTHHTTP 1796122210.907 10.213.0.35 GET allowed.test 80 200 192 115 45776 -')?.reason).toBeUndefined();
  });
});

describe('Allow this host', () => {
  it('adds the bare host for 80 and 443, host:port otherwise, and never an IP', () => {
    expect(allowEntryFor('Blocked.Test', 443)).toBe('blocked.test');
    expect(allowEntryFor('blocked.test', null)).toBe('blocked.test');
    expect(allowEntryFor('blocked.test', 8080)).toBe('blocked.test:8080');
    expect(() => allowEntryFor('198.18.0.5', 80)).toThrow(/IP address/);
  });
});

it('sets both spellings of the proxy variables, with loopback excepted', () => {
  const env = proxyEnv();
  expect(env).toContain('HTTPS_PROXY=http://berth-egress-proxy:3128');
  expect(env).toContain('https_proxy=http://berth-egress-proxy:3128');
  expect(env).toContain('NO_PROXY=localhost,127.0.0.1,::1');
});

it("gives an allowlist sandbox its own network only, the proxy variables, and DNS that answers nothing else", async () => {
  const { buildContainerSpec } = await import('./containerSpec.js');
  const spec = buildContainerSpec({
    name: 'c', image: 'i', user: '1000:1000', instanceId: 'inst', profile: 'p', chatId: 'c1', key: 'default:c1', homeSource: '/h',
    mounts: [], limits: { memoryMb: 256, cpus: 1, pids: 64 }, workingDir: '/workspace',
    network: { mode: 'allowlist', name: 'berth-sbx-x', env: proxyEnv() },
  });
  expect(spec.HostConfig.NetworkMode).toBe('berth-sbx-x');
  expect(Object.keys(spec.NetworkingConfig?.EndpointsConfig ?? {})).toEqual(['berth-sbx-x']);
  expect(spec.Env).toContain('HTTP_PROXY=http://berth-egress-proxy:3130');
  expect(spec.Env).toContain('HTTPS_PROXY=http://berth-egress-proxy:3128');
  expect(spec.HostConfig.Dns).toEqual(['127.0.0.1']);
  expect(spec.HostConfig.CapDrop).toEqual(['ALL']);
});

describe('allowlistEngineProblem', () => {
  const local = { kind: 'default', remote: false, label: '/var/run/docker.sock' };
  const remote = { kind: 'ssh', remote: true, label: 'ssh://me@build-box' };
  const podman = { kind: 'podman', remote: false, label: '/run/podman/podman.sock' };
  it('lets the allowlist run on this computer\'s Docker, and every other network anywhere', () => {
    expect(allowlistEngineProblem('allowlist', local)).toBeNull();
    for (const engine of [local, remote, podman]) for (const mode of ['none', 'open']) expect(allowlistEngineProblem(mode, engine)).toBeNull();
  });
  it('refuses the allowlist on a remote engine and on Podman, saying why and what to pick instead', () => {
    expect(allowlistEngineProblem('allowlist', remote)?.message).toBe(
      "The allowlist network needs this computer's Docker engine: its proxy runs here, and the engine at ssh://me@build-box is another machine whose sandboxes cannot reach it.",
    );
    expect(allowlistEngineProblem('allowlist', podman)?.message).toMatch(/Podman's networks cannot be sealed/);
    expect(allowlistEngineProblem('allowlist', { ...remote, kind: 'context' })?.hint).toBe('Set Network to "None" or "Open" for this engine, or run the profile on this computer\'s Docker.');
  });
});

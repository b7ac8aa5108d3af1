import { describe, expect, it } from 'vitest';
import { EgressAllowEntry, egressEntryProblem } from '../../../shared/egress.js';
import { allowEntryFor, haproxyConf, httpAllowList, parseHttpLog, parseProxyLog, proxyEnv, squidAllowConf, squidConf } from './egress.js';

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
});

describe('squid configuration', () => {
  it('allows each entry only on its ports (80 and 443 by default), with no reverse lookups of IP literals', () => {
    const conf = squidAllowConf(['github.com', '*.npmjs.org', 'registry.local:8443']);
    expect(conf).toContain('acl berth_host_0 dstdomain -n github.com\nacl berth_port_0 port 80 443\nhttp_access allow berth_host_0 berth_port_0');
    expect(conf).toContain('acl berth_host_1 dstdomain -n .npmjs.org');
    expect(conf).toContain('acl berth_host_2 dstdomain -n registry.local\nacl berth_port_2 port 8443');
    expect(squidAllowConf([])).not.toContain('http_access');
  });

  it('checks the SNI of every CONNECT against the same names: peek, splice the allowed, cut the rest (no interception)', () => {
    const allow = squidAllowConf(['github.com', '*.npmjs.org']);
    expect(allow).toContain('acl berth_sni ssl::server_name github.com');
    expect(allow).toContain('acl berth_sni ssl::server_name .npmjs.org');
    // An empty list still defines the acl (squid refuses an unknown one), matching nothing real.
    expect(squidAllowConf([])).toContain('acl berth_sni ssl::server_name berth.invalid');
    const conf = squidConf('/tmp/berth');
    // Sandboxes reach a plain port (refusals are plain 403s); allowed CONNECTs go on to the
    // loopback-only ssl-bump port, which peeks and splices.
    expect(conf).toContain('http_port 3128\n');
    expect(conf).toMatch(/http_port 127\.0\.0\.1:3129 ssl-bump .*generate-host-certificates=off/);
    expect(conf).toContain('never_direct allow CONNECT !berth_inner');
    const peek = conf.indexOf('ssl_bump peek berth_step1');
    const splice = conf.indexOf('ssl_bump splice berth_sni');
    const terminate = conf.indexOf('ssl_bump terminate all');
    expect(peek).toBeGreaterThan(0);
    expect(splice).toBeGreaterThan(peek);
    expect(terminate).toBeGreaterThan(splice);
    expect(conf).not.toMatch(/ssl_bump (bump|stare)/);
  });

  it('refuses this computer, the LAN and link-local before any allow, and everything else after', () => {
    const conf = squidConf('/tmp/berth');
    const never = conf.indexOf('http_access deny berth_never');
    const include = conf.indexOf('include /tmp/berth/allow.conf');
    const denyAll = conf.indexOf('http_access deny all');
    expect(never).toBeGreaterThan(0);
    expect(include).toBeGreaterThan(never);
    expect(denyAll).toBeGreaterThan(include);
    expect(conf).toMatch(/acl berth_never dst .*127\.0\.0\.0\/8.*10\.0\.0\.0\/8.*172\.16\.0\.0\/12.*192\.168\.0\.0\/16.*169\.254\.0\.0\/16/);
    expect(conf).toContain('cache deny all');
  });
});

describe('the proxy log', () => {
  it('reads allowed and refused lines, and ignores anything else', () => {
    expect(parseProxyLog('BERTH 1764536400.123 172.30.0.2 CONNECT allowed.test 443 TCP_TUNNEL 200 5120 610')).toEqual({
      time: 1764536400123, client: '172.30.0.2', method: 'CONNECT', host: 'allowed.test', port: 443, allowed: true, bytesIn: 5120, bytesOut: 610,
    });
    expect(parseProxyLog('BERTH 1764536400.000 172.30.0.2 GET blocked.test 80 TCP_DENIED 403 3900 80')?.allowed).toBe(false);
    expect(parseProxyLog('2026/11/30 21:02:06| Accepting HTTP Socket connections')).toBeNull();
  });
});

describe('plain HTTP (HAProxy)', () => {
  const patterns = (entries: string[]) => httpAllowList(entries).split('\n').filter((l) => l && !l.startsWith('#')).map((l) => new RegExp(l));
  const allows = (entries: string[], hostHeader: string) => patterns(entries).some((re) => re.test(hostHeader));

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
  });

  it('refuses IP literals, CONNECT and this computer\'s and the LAN\'s addresses before connecting; reads the list from its file', () => {
    const conf = haproxyConf('/tmp/berth');
    expect(conf).toContain('bind :3130');
    expect(conf).toMatch(/deny deny_status 403 if METH_CONNECT/);
    expect(conf).toMatch(/deny deny_status 403 if \{ var\(txn\.host\) -m reg \^\[0-9\.\]\+\$ \}/);
    expect(conf).toContain('-m reg -f /tmp/berth/http-allow.lst');
    expect(conf).toMatch(/deny deny_status 403 if \{ var\(txn\.dstip\) -m ip 0\.0\.0\.0\/8 127\.0\.0\.0\/8 10\.0\.0\.0\/8 172\.16\.0\.0\/12 192\.168\.0\.0\/16 169\.254/);
    // The decision comes before the address is set: nothing is connected to before it.
    expect(conf.indexOf('-f /tmp/berth/http-allow.lst')).toBeLessThan(conf.indexOf('set-dst var'));
    expect(conf.indexOf('-m ip')).toBeLessThan(conf.indexOf('set-dst var'));
  });

  it('reads its log lines with bytes, a 403 as refused, and skips unreadable requests', () => {
    expect(parseHttpLog('BERTHHTTP 1796104729.809 10.213.0.2 GET allowed.test 80 200 209715322 139')).toEqual({
      time: 1796104729809, client: '10.213.0.2', method: 'GET', host: 'allowed.test', port: 80, allowed: true, bytesIn: 209715322, bytesOut: 139,
    });
    expect(parseHttpLog('BERTHHTTP 1796104730.000 10.213.0.2 GET blocked.test 8080 403 192 134')?.allowed).toBe(false);
    expect(parseHttpLog('BERTHHTTP 1796104730.000 10.213.0.2 <BADREQ> - - 400 0 0')).toBeNull();
    expect(parseHttpLog('BERTH 1764536400.123 172.30.0.2 CONNECT allowed.test 443 TCP_TUNNEL 200 5120 610')).toBeNull();
    expect(parseProxyLog('BERTHHTTP 1796104729.809 10.213.0.2 GET allowed.test 80 200 209715322 139')).toBeNull();
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

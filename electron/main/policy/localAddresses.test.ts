import { describe, expect, it } from 'vitest';
import { coveredBy, firstHost, localAddresses } from './localAddresses.js';

describe("this computer's own addresses", () => {
  it('takes every interface address, IPv4 and IPv6 without its zone, and every network gateway, once each', () => {
    const interfaces = {
      lo: [{ address: '127.0.0.1', family: 'IPv4' }, { address: '::1', family: 'IPv6' }],
      eth0: [{ address: '192.0.2.2', family: 'IPv4' }, { address: 'fe80::1%eth0', family: 'IPv6' }, { address: '2001:DB8::5', family: 6 }],
      docker0: [{ address: '172.17.0.1', family: 'IPv4' }],
      down: undefined,
    };
    const networks = [
      { subnets: ['172.17.0.0/16'], gateways: ['172.17.0.1'] },
      // Made with a subnet and no gateway: Docker reports none and takes the first host.
      { subnets: ['198.18.7.0/24'], gateways: [] },
      { subnets: ['203.0.113.0/24'], gateways: ['203.0.113.254'] },
      { subnets: [] },
    ];
    expect(localAddresses(interfaces, networks)).toEqual(
      ['127.0.0.1', '172.17.0.1', '192.0.2.2', '198.18.7.1', '2001:db8::5', '203.0.113.1', '203.0.113.254', '::1', 'fe80::1'],
    );
  });

  it('finds a subnet\'s first host, and nothing for what is not an IPv4 subnet', () => {
    expect(firstHost('198.18.7.0/24')).toBe('198.18.7.1');
    expect(firstHost('10.213.0.16/28')).toBe('10.213.0.17');
    expect(firstHost('10.213.0.20/28')).toBe('10.213.0.17');
    for (const bad of ['', 'fd00::/64', '1.2.3.4', '1.2.3.4/31', '300.1.1.0/24']) expect(firstHost(bad), bad).toBeNull();
  });

  it('tells whether a range holds an address, IPv4 and IPv6', () => {
    expect(coveredBy('172.31.255.255', ['172.16.0.0/12'])).toBe(true);
    expect(coveredBy('172.32.0.1', ['172.16.0.0/12'])).toBe(false);
    expect(coveredBy('192.0.2.2', ['192.0.2.2'])).toBe(true);
    expect(coveredBy('fdab::1', ['fc00::/7'])).toBe(true);
    expect(coveredBy('febf::1', ['fe80::/10'])).toBe(true);
    expect(coveredBy('fec0::1', ['fe80::/10'])).toBe(false);
    expect(coveredBy('::1', ['::1'])).toBe(true);
    expect(coveredBy('2001:db8::1', ['::1', '10.0.0.0/8'])).toBe(false);
    expect(coveredBy('not-an-address', ['0.0.0.0/0'])).toBe(false);
  });
});

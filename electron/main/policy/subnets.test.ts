import { describe, expect, it } from 'vitest';
import { DEFAULT_SUBNET_POOL, openNetworkPool, parseSubnetPool, pickSubnet, poolCapacity } from './subnets.js';

describe('sealed-network subnets', () => {
  const pool = { range: '10.213.0.0/16', prefix: 28 };

  it('takes the first /28 of the range that no network uses', () => {
    expect(pickSubnet(pool, [])).toBe('10.213.0.0/28');
    expect(pickSubnet(pool, ['10.213.0.0/28', '10.213.0.16/28'])).toBe('10.213.0.32/28');
    // A hole left by a removed network is used again.
    expect(pickSubnet(pool, ['10.213.0.0/28', '10.213.0.32/28'])).toBe('10.213.0.16/28');
  });

  it('skips any overlap: a bigger block, a smaller one inside a candidate, and ignores other ranges and IPv6', () => {
    expect(pickSubnet(pool, ['10.213.0.0/20'])).toBe('10.213.16.0/28');
    expect(pickSubnet(pool, ['10.213.0.5/32', '10.213.0.20/30'])).toBe('10.213.0.32/28');
    expect(pickSubnet(pool, ['172.17.0.0/16', 'fd00::/64', 'not a subnet'])).toBe('10.213.0.0/28');
    expect(pickSubnet(pool, ['10.0.0.0/8'])).toBeNull();
  });

  it('says when the pool is used up', () => {
    const small = { range: '10.213.7.0/27', prefix: 28 };
    expect(poolCapacity(small)).toBe(2);
    expect(pickSubnet(small, ['10.213.7.0/28'])).toBe('10.213.7.16/28');
    expect(pickSubnet(small, ['10.213.7.0/28', '10.213.7.16/28'])).toBeNull();
    expect(poolCapacity(DEFAULT_SUBNET_POOL)).toBe(4096);
  });

  it('reads the settings, normalising the range, and names a bad one', () => {
    expect(parseSubnetPool(undefined, undefined)).toEqual(DEFAULT_SUBNET_POOL);
    expect(parseSubnetPool('10.50.3.9/16', '29')).toEqual({ range: '10.50.0.0/16', prefix: 29 });
    expect(() => parseSubnetPool('10.50.0.0', undefined)).toThrow(/BERTH_EGRESS_POOL must be/);
    expect(() => parseSubnetPool('10.50.0.0/16', '30')).toThrow(/BERTH_EGRESS_POOL_SIZE/);
    expect(() => parseSubnetPool('10.50.0.0/24', '20')).toThrow(/BERTH_EGRESS_POOL_SIZE/);
  });

  it("gives an open profile's network a /22 of the same range, past the sealed /28s already taken", () => {
    const open = openNetworkPool(DEFAULT_SUBNET_POOL);
    expect(open).toEqual({ range: '10.213.0.0/16', prefix: 22 });
    expect(poolCapacity(open)).toBe(64);
    expect(pickSubnet(open, [])).toBe('10.213.0.0/22');
    // A sealed /28 anywhere in the first /22 moves the open network to the next one, and back.
    expect(pickSubnet(open, ['10.213.0.16/28'])).toBe('10.213.4.0/22');
    expect(pickSubnet(DEFAULT_SUBNET_POOL, ['10.213.0.0/22'])).toBe('10.213.4.0/28');
    // A smaller range than a /22: the whole range, once.
    expect(openNetworkPool({ range: '10.9.9.0/24', prefix: 28 })).toEqual({ range: '10.9.9.0/24', prefix: 24 });
  });
});

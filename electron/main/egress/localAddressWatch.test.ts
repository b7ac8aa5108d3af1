import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../engine/dockerEngine.js';
import type { InterfaceAddress, NetworkAddresses } from '../policy/localAddresses.js';
import { waitFor } from '../../../test/support/waitFor.js';
import { LocalAddressWatch } from './localAddressWatch.js';

/** This computer as the watch sees it: interfaces and Docker networks the test changes. */
function computer() {
  const state = {
    interfaces: { eth0: [{ address: '192.0.2.2', family: 'IPv4' }] } as Record<string, InterfaceAddress[]>,
    networks: [] as NetworkAddresses[],
    engineDown: false,
  };
  const engine = {
    findNetworks: async () => {
      if (state.engineDown) throw new Error('Docker is not running');
      return state.networks.map((n, i) => ({ name: `n${i}`, labels: {}, subnets: [...n.subnets], gateways: [...(n.gateways ?? [])] }));
    },
  } as unknown as Engine;
  return { state, engine };
}

const watches: LocalAddressWatch[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) w.stop();
});

describe('LocalAddressWatch', () => {
  it('reads the interfaces and the networks\' gateways at once, then tells of each change', async () => {
    const { state, engine } = computer();
    const told: string[][] = [];
    const watch = new LocalAddressWatch({ engine, interfaces: () => state.interfaces, refreshMs: 10, onChange: async (list) => (told.push(list), true) });
    watches.push(watch);
    expect(await watch.current()).toEqual(['192.0.2.2']);
    state.networks.push({ subnets: ['198.18.7.0/24'] });
    await waitFor(async () => told.length === 1, 'the new gateway');
    expect(told[0]).toEqual(['192.0.2.2', '198.18.7.1']);
    state.interfaces.lo = [{ address: '203.0.113.7', family: 'IPv4' }];
    await waitFor(async () => told.length === 2, 'the new interface address');
    expect(await watch.current()).toEqual(['192.0.2.2', '198.18.7.1', '203.0.113.7']);
  });

  it('offers a list again until the proxies take it, and keeps the last one while Docker does not answer', async () => {
    const { state, engine } = computer();
    let takes = false;
    let offers = 0;
    const watch = new LocalAddressWatch({ engine, interfaces: () => state.interfaces, refreshMs: 10, onChange: async () => (offers++, takes) });
    watches.push(watch);
    await watch.current();
    state.interfaces.lo = [{ address: '203.0.113.7', family: 'IPv4' }];
    await waitFor(async () => offers >= 3, 'the list offered again');
    takes = true;
    const before = offers;
    await waitFor(async () => offers > before, 'the list taken');
    state.engineDown = true;
    expect(await watch.current()).toEqual(['192.0.2.2', '203.0.113.7']);
  });

  it('after stop(), reads afresh at the next current()', async () => {
    const { state, engine } = computer();
    const watch = new LocalAddressWatch({ engine, interfaces: () => state.interfaces, refreshMs: 10_000, onChange: async () => true });
    watches.push(watch);
    await watch.current();
    watch.stop();
    state.interfaces.lo = [{ address: '203.0.113.7', family: 'IPv4' }];
    expect(await watch.current()).toEqual(['192.0.2.2', '203.0.113.7']);
  });
});

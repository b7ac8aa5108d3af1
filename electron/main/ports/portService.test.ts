import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { BerthError } from '../../../shared/errors.js';
import type { Engine } from '../engine/dockerEngine.js';
import { LIST_PORTS_COMMAND, PROBE_RELAY_COMMAND } from './common/listeningPorts.js';
import { waitFor } from '../../../test/support/waitFor.js';
import { PortService, type PortContainer } from './portService.js';

const line = (port: number) => `   0: 00000000:${port.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 1 1`;

function setup(savedBefore?: string) {
  const listening = new Set<number>();
  const engine = {
    execOnce: async (_id: string, cmd: string[]) => {
      if (cmd === LIST_PORTS_COMMAND) return { exitCode: 0, output: `  sl local_address\n${[...listening].map(line).join('\n')}\n` };
      if (cmd === PROBE_RELAY_COMMAND) return { exitCode: 0, output: 'python3\n' };
      throw new Error(`unexpected ${cmd.join(' ')}`);
    },
  } as unknown as Engine;
  let running: PortContainer | null = { key: 'k1', id: 'c1', user: '1000:1000', engine };
  let chats = new Set(['chat']);
  const gone = new Set<(key: string) => void>();
  let saved: string | undefined = savedBefore;
  const ports = new PortService({
    container: async (chatId) => {
      if (!chats.has(chatId)) throw new BerthError('not_found', `No chat ${chatId}.`);
      return running;
    },
    containers: { onGone: (l: (key: string) => void) => (gone.add(l), () => gone.delete(l)) },
    saved: { get: () => saved, set: (v) => (saved = v) },
  });
  return {
    ports,
    listening,
    gone,
    stop: () => (running = null),
    forget: (chatId: string) => (chats = new Set([...chats].filter((c) => c !== chatId))),
    saved: () => JSON.parse(saved ?? '[]') as unknown[],
    savedText: () => saved,
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    http.get(`http://127.0.0.1:${port}/`, { agent: false }, (res) => (res.resume(), resolve(true))).on('error', () => resolve(false));
  });
}

describe('PortService', () => {
  it('tells the agent once about each port its sandbox began listening on', async () => {
    const { ports, listening } = setup();
    expect(await ports.newPortsNote('chat')).toBeNull();
    listening.add(8000);
    expect(await ports.newPortsNote('chat')).toMatch(/listens on port 8000\. The user can open it .*Ports section \(Open in browser\)/);
    expect(await ports.newPortsNote('chat')).toBeNull();
    listening.add(3000);
    listening.add(5173);
    expect(await ports.newPortsNote('chat')).toMatch(/listens on ports 3000, 5173\./);
  });

  it('lists nothing and opens nothing while no sandbox runs', async () => {
    const { ports, stop } = setup();
    stop();
    expect(await ports.list('chat')).toEqual({ running: false, ports: [] });
    await expect(ports.open('chat', 8000)).rejects.toThrow(/not running/);
  });

  it('ends a forward when its sandbox goes, and forgets it; keeps it saved when Berth quits', async () => {
    const { ports, listening, gone, saved } = setup();
    listening.add(8000);
    const f = await ports.open('chat', 8000);
    expect(f.url).toContain(`127.0.0.1:${f.hostPort}/?berth_secret=`);
    expect(await answers(f.hostPort)).toBe(true);
    expect(saved()).toHaveLength(1);
    for (const l of gone) l('k1');
    await waitFor(async () => !(await answers(f.hostPort)), 'the forward to stop answering');
    expect(saved()).toEqual([]);

    const again = await ports.open('chat', 8000);
    await ports.dispose();
    expect(await answers(again.hostPort)).toBe(false);
    expect(saved()).toHaveLength(1);
  });

  it('opens a saved forward again at its address when the port still listens, and forgets one whose chat is gone', async () => {
    const before = setup();
    before.listening.add(8000);
    const f = await before.ports.open('chat', 8000);
    await before.ports.dispose();
    expect(await answers(f.hostPort)).toBe(false);

    // A restart: the same settings value, as the store keeps it.
    const after = setup(before.savedText());
    after.listening.add(8000);
    await after.ports.restoreAll();
    expect(await answers(f.hostPort)).toBe(true);
    expect((await after.ports.list('chat')).ports).toEqual([{ port: 8000, forward: f }]);
    await after.ports.dispose();

    const gone = setup(before.savedText());
    gone.forget('chat');
    await gone.ports.restoreAll();
    expect(gone.saved()).toEqual([]);
  });
});

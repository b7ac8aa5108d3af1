/**
 * One core, the scripted model server it talks to, and what its terminals print: for
 * integration tests that drive the agent and type in terminals of the same chats.
 */
import { afterAll, beforeAll } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { LABEL } from '../../electron/main/policy/containerSpec.js';
import { BUSYBOX, docker } from './docker.js';
import { waitFor } from './waitFor.js';
import type { Harness } from './harness.js';
import { startOpenAiTestServer, type OpenAiTestServer } from './openaiTestServer.js';
import { watchTerminals, type TerminalScreens } from './terminalScreens.js';

const KEY = 'sk-test-0123456789abcdef';

export interface AgentBench {
  core: BerthCore;
  server: OpenAiTestServer;
  screens: TerminalScreens;
  /** A busybox profile whose agent is the scripted server, runs without asking, with its key set; more settings on top. */
  agentProfile(settings?: Record<string, unknown>): Promise<string>;
  /** Waits until the profile has a warm sandbox waiting for its next chat. */
  warm(profile: string): Promise<void>;
  /** Removes what the core made, then stops the server. */
  close(): Promise<void>;
}

export async function agentBench(h: Harness): Promise<AgentBench> {
  const server = await startOpenAiTestServer({ apiKey: KEY });
  const core = h.core();
  const screens = watchTerminals(core);
  return {
    core, server, screens,
    async agentProfile(settings = {}) {
      const p = await h.profile(core, { image: BUSYBOX, agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' }, ...settings });
      await core.agent.setKey({ profile: p.name, apiKey: KEY });
      return p.name;
    },
    async warm(profile) {
      const filters = ['--filter', `label=${LABEL.instance}=${core.instanceId}`, '--filter', `label=${LABEL.profile}=${profile}`];
      // Running, not only created: a chat made before the warm sandbox is up would not take it.
      await waitFor(async () => (await docker('ps', '-q', ...filters)) !== '' || undefined, 'a warm sandbox', 60_000);
    },
    async close() {
      await h.cleanup();
      await server.close();
    },
  };
}

/** An agent bench for the test file: made before its tests, closed after them; its fields are there from the first test on. */
export function useAgentBench(h: Harness): AgentBench {
  const bench = {} as AgentBench;
  beforeAll(async () => {
    Object.assign(bench, await agentBench(h));
  });
  afterAll(() => bench.close(), 120_000);
  return bench;
}

/** Drives a core's agent as the UI does (agent.send, then events), for integration tests. */
import type { AgentMessage, ApprovalRequest } from '../../shared/contract.js';
import type { BerthCore } from '../../electron/main/core.js';
import { afterAll, beforeAll } from 'vitest';
import { nextEvent } from './events.js';
import { Harness } from './harness.js';
import { startOpenAiTestServer, type OpenAiTestServer } from './openaiTestServer.js';

/** A test file's harness, core and scripted provider (with this key), made before its tests and cleaned up after. */
export function agentSuite(apiKey: string): { h: Harness; readonly core: BerthCore; readonly server: OpenAiTestServer } {
  const h = new Harness();
  let core: BerthCore | undefined;
  let server: OpenAiTestServer | undefined;
  beforeAll(async () => {
    server = await startOpenAiTestServer({ apiKey });
    core = h.core();
  });
  afterAll(async () => {
    await h.cleanup();
    await server?.close();
  });
  return {
    h,
    get core() {
      return core as BerthCore;
    },
    get server() {
      return server as OpenAiTestServer;
    },
  };
}

export interface TurnEnd {
  error: { code: string; message: string; hint?: string } | null;
}

/** Sends a message and waits for the turn to end; `onApproval` answers approvals as a user would. */
export async function runTurn(
  core: BerthCore,
  chatId: string,
  text: string,
  onApproval?: (a: ApprovalRequest) => void,
  timeoutMs = 60_000,
): Promise<TurnEnd> {
  const approvals = core.onEvent((event, payload) => {
    if (event === 'agent.approval' && (payload as ApprovalRequest).chatId === chatId) onApproval?.(payload as ApprovalRequest);
  });
  const ended = nextEvent(core, 'agent.state', (s) => s.chatId === chatId && !s.running, timeoutMs);
  try {
    await core.agent.send({ chatId, text });
    return { error: (await ended).error };
  } finally {
    approvals.dispose();
  }
}

export async function history(core: BerthCore, chatId: string): Promise<AgentMessage[]> {
  return (await core.agent.history({ chatId })).messages;
}

export function toolCalls(messages: AgentMessage[]) {
  return messages.flatMap((m) => m.toolCalls);
}

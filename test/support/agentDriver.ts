/** Drives a core's agent as the UI does (agent.send, then events), for integration tests. */
import type { AgentMessage, ApprovalRequest } from '../../shared/contract.js';
import type { BerthCore } from '../../electron/main/core.js';

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
  let sub: { dispose(): void } | undefined;
  const ended = new Promise<TurnEnd>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The agent's turn in ${chatId} did not end within ${timeoutMs / 1000} s.`)), timeoutMs);
    sub = core.onEvent((event, payload) => {
      if (event === 'agent.approval' && (payload as ApprovalRequest).chatId === chatId) onApproval?.(payload as ApprovalRequest);
      if (event === 'agent.state') {
        const s = payload as { chatId: string; running: boolean; error: TurnEnd['error'] };
        if (s.chatId === chatId && !s.running) {
          clearTimeout(timer);
          resolve({ error: s.error });
        }
      }
    });
  });
  try {
    await core.agent.send({ chatId, text });
    return await ended;
  } finally {
    sub?.dispose();
  }
}

export async function history(core: BerthCore, chatId: string): Promise<AgentMessage[]> {
  return (await core.agent.history({ chatId })).messages;
}

export function toolCalls(messages: AgentMessage[]) {
  return messages.flatMap((m) => m.toolCalls);
}

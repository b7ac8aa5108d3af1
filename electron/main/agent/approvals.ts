/**
 * Approvals for profiles that ask before each command: a tool call waits here until the user
 * allows it once, allows the chat's commands from now on, or denies it. "For this chat" lasts
 * while Berth runs; a restart asks again.
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalRequest } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { EventHub } from '../events.js';

export type ApprovalDecision = 'once' | 'chat' | 'deny';
export type ApprovalOutcome = 'allowed' | 'denied' | 'cancelled';
/** The outcome, and for a denial the user's reason for the agent (null: none given). */
export interface ApprovalAnswer {
  outcome: ApprovalOutcome;
  reason: string | null;
}

interface Pending {
  request: ApprovalRequest;
  settle: (outcome: ApprovalOutcome, reason?: string | null) => void;
}

export class ApprovalGate {
  private readonly pending = new Map<string, Pending>();
  private readonly allowedChats = new Set<string>();

  constructor(private readonly events: EventHub) {}

  isAllowed(chatId: string): boolean {
    return this.allowedChats.has(chatId);
  }

  ask(request: Omit<ApprovalRequest, 'approvalId'>, signal: AbortSignal): Promise<ApprovalAnswer> {
    if (this.allowedChats.has(request.chatId)) return Promise.resolve({ outcome: 'allowed', reason: null });
    if (signal.aborted) return Promise.resolve({ outcome: 'cancelled', reason: null });
    const approvalId = randomUUID();
    const full: ApprovalRequest = { ...request, approvalId };
    return new Promise((resolve) => {
      const onAbort = () => settle('cancelled');
      const settle = (outcome: ApprovalOutcome, reason: string | null = null) => {
        if (!this.pending.delete(approvalId)) return;
        signal.removeEventListener('abort', onAbort);
        this.events.emit('agent.approvalDone', { chatId: request.chatId, approvalId });
        resolve({ outcome, reason });
      };
      this.pending.set(approvalId, { request: full, settle });
      signal.addEventListener('abort', onAbort, { once: true });
      this.events.emit('agent.approval', full);
    });
  }

  answer(chatId: string, approvalId: string, decision: ApprovalDecision, reason?: string): void {
    const p = this.pending.get(approvalId);
    if (!p || p.request.chatId !== chatId) {
      throw new BerthError('not_found', 'That approval is no longer waiting.', { hint: 'The turn may have been stopped or already answered.' });
    }
    if (decision === 'chat' && !this.allowedChats.has(chatId)) {
      this.allowedChats.add(chatId);
      this.events.emit('agent.allowed', { chatId, allowed: true });
    }
    const why = reason?.trim() ? reason.trim() : null;
    p.settle(decision === 'deny' ? 'denied' : 'allowed', decision === 'deny' ? why : null);
  }

  /** Takes back "for this chat": its next command asks again. */
  revoke(chatId: string): void {
    if (this.allowedChats.delete(chatId)) this.events.emit('agent.allowed', { chatId, allowed: false });
  }

  /** Every approval waiting, in any chat. */
  pendingAll(): ApprovalRequest[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  pendingFor(chatId: string): ApprovalRequest[] {
    return [...this.pending.values()].filter((p) => p.request.chatId === chatId).map((p) => p.request);
  }

  forgetChat(chatId: string): void {
    this.allowedChats.delete(chatId);
    for (const p of [...this.pending.values()]) if (p.request.chatId === chatId) p.settle('cancelled');
  }
}

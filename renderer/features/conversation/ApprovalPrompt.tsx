/** A command the agent wants to run (profile approval "ask"): exactly what and where, and the answers. */
import { useEffect, useState } from 'react';
import type { ApprovalRequest } from '../../../shared/contract';
import type { ApprovalDecision } from '../../stores/agent';
import { APPROVAL_KEYS } from '../shortcuts';

export interface ApprovalPromptProps {
  request: ApprovalRequest;
  busy: boolean;
  /** `reason`: with Deny, what the user wrote for the agent (maybe empty). */
  onAnswer(decision: ApprovalDecision, reason?: string): void;
}

/**
 * The command as it will run, with nothing hidden: control and invisible formatting characters
 * (bidi overrides, zero-width spaces) are shown as \u escapes, and tabs as \t.
 */
export function visibleCommand(command: string): string {
  // eslint-disable-next-line no-control-regex
  return command.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\t]|\p{Cf}/gu, (ch) =>
    ch === '\t' ? '\\t' : `\\u${ch.codePointAt(0)?.toString(16).padStart(4, '0') ?? ''}`,
  );
}

/** A prompt that just appeared takes no click for this long: a click meant for what it pushed aside must not allow a command. */
export const APPROVAL_ARM_MS = 400;

export function ApprovalPrompt({ request, busy, onAnswer }: ApprovalPromptProps) {
  const lines = request.command.split('\n').length;
  const [armed, setArmed] = useState(false);
  const [reason, setReason] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setArmed(true), APPROVAL_ARM_MS);
    return () => clearTimeout(timer);
  }, []);
  return (
    // Focusable by script: where the focus goes when an answered prompt leaves another one behind.
    <div role="group" aria-label="Approval needed" className="approval" tabIndex={-1}>
      <p className="approval-title">
        {request.taskId === null ? 'The agent' : 'A subagent (a task the agent delegated)'} wants to use <strong>{request.tool}</strong>
        {request.cwd !== null && (
          <>
            {' '}
            in <code>{request.cwd}</code>
          </>
        )}
        :
      </p>
      {lines > 1 && <p className="approval-lines">{lines} lines: read all of them.</p>}
      <pre className="approval-command approval-whole" aria-label="Command" tabIndex={0}>
        {visibleCommand(request.command)}
      </pre>
      {request.detail !== null && (
        <figure className="approval-detail">
          <figcaption>Content it would write</figcaption>
          <pre className="approval-command" aria-label="Content it would write" tabIndex={0}>
            {request.detail}
          </pre>
        </figure>
      )}
      <div className="approval-buttons">
        <button type="button" className="primary" data-answer="once" aria-keyshortcuts={APPROVAL_KEYS.allowOnce} disabled={busy || !armed} onClick={() => onAnswer('once')}>
          Allow once <kbd aria-hidden="true">{APPROVAL_KEYS.allowOnce}</kbd>
        </button>
        <button type="button" disabled={busy || !armed} onClick={() => onAnswer('chat')} title="Run this and later commands in this chat without asking">
          Allow for this chat
        </button>
        <button type="button" className="danger" data-answer="deny" aria-keyshortcuts={APPROVAL_KEYS.deny} disabled={busy || !armed} onClick={() => onAnswer('deny', reason)}>
          Deny <kbd aria-hidden="true">{APPROVAL_KEYS.deny}</kbd>
        </button>
        <input
          type="text"
          className="approval-reason"
          aria-label="Reason for the agent (optional, sent with Deny)"
          placeholder="Why not? (optional, goes to the agent with Deny)"
          maxLength={2000}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          onKeyDown={(e) => {
            // Enter in the reason denies with it (never allows).
            if (e.key === 'Enter' && armed && !busy) {
              e.preventDefault();
              onAnswer('deny', reason);
            }
          }}
        />
      </div>
    </div>
  );
}

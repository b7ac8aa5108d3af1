/** A command the agent wants to run (profile approval "ask"): exactly what and where, and the answers. */
import type { ApprovalRequest } from '../../../shared/contract';
import type { ApprovalDecision } from '../../stores/agent';

export interface ApprovalPromptProps {
  request: ApprovalRequest;
  busy: boolean;
  onAnswer(decision: ApprovalDecision): void;
}

export function ApprovalPrompt({ request, busy, onAnswer }: ApprovalPromptProps) {
  return (
    <div role="group" aria-label="Approval needed" className="approval">
      <p className="approval-title">
        The agent wants to use <strong>{request.tool}</strong>
        {request.cwd !== null && (
          <>
            {' '}
            in <code>{request.cwd}</code>
          </>
        )}
        :
      </p>
      <pre className="approval-command">{request.command}</pre>
      {request.detail !== null && (
        <figure className="approval-detail">
          <figcaption>Content it would write</figcaption>
          <pre className="approval-command" aria-label="Content it would write">
            {request.detail}
          </pre>
        </figure>
      )}
      <div className="approval-buttons">
        <button type="button" className="primary" disabled={busy} onClick={() => onAnswer('once')}>
          Allow once
        </button>
        <button type="button" disabled={busy} onClick={() => onAnswer('chat')} title="Run this and later commands in this chat without asking">
          Allow for this chat
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => onAnswer('deny')}>
          Deny
        </button>
      </div>
    </div>
  );
}

/** One tool call: what ran, where, how it ended; its output collapsed; a subagent's work under it. */
import { useId, useState, type ReactNode } from 'react';
import type { AgentToolCall } from '../../../shared/contract';
import { FileDiff } from '../changes';
import { callName, formatDuration, STATUS_LABELS } from './tree';

/**
 * Which outputs the user opened, by message and call: the list unmounts rows scrolled out of
 * view, and an output opened before must still be open when its row comes back.
 */
const opened = new Set<string>();

export function ToolCallCard({ call, messageId, children }: { call: AgentToolCall; messageId: string; children?: ReactNode }) {
  const openKey = `${messageId}\u0000${call.id}`;
  const [open, setOpenState] = useState(() => opened.has(openKey));
  const setOpen = (update: (was: boolean) => boolean) =>
    setOpenState((was) => {
      const now = update(was);
      if (now) opened.add(openKey);
      else opened.delete(openKey);
      return now;
    });
  const outputId = useId();
  const hasOutput = call.output !== null && call.output !== '';

  return (
    <div role="group" aria-label={callName(call)} className={`tool-card status-${call.status}`}>
      <div className="tool-head">
        <span className="tool-name">{call.name}</span>
        <span className={`badge tool-status status-${call.status}`}>{STATUS_LABELS[call.status]}</span>
      </div>
      <dl className="tool-facts">
        {call.command !== null && (
          <>
            <dt>Command</dt>
            <dd>
              <code className="tool-command">{call.command}</code>
            </dd>
          </>
        )}
        {call.cwd !== null && (
          <>
            <dt>Directory</dt>
            <dd>
              <code>{call.cwd}</code>
            </dd>
          </>
        )}
        {call.exitCode !== null && (
          <>
            <dt>Exit code</dt>
            <dd className={call.exitCode === 0 ? 'exit-ok' : 'exit-bad'}>{call.exitCode}</dd>
          </>
        )}
        {call.durationMs !== null && (
          <>
            <dt>Duration</dt>
            <dd>{formatDuration(call.durationMs)}</dd>
          </>
        )}
      </dl>
      {/* An edit's change, drawn as the Changes panel draws one: the user sees what it did at a glance. */}
      {call.diff && <FileDiff path={editedPath(call)} diff={call.diff} layout="unified" />}
      {hasOutput && (
        <>
          <button type="button" className="link-button" aria-expanded={open} aria-controls={outputId} onClick={() => setOpen((o) => !o)}>
            {open ? 'Hide output' : 'Show output'}
          </button>
          {/* Mounted only when open: long outputs cost nothing while collapsed. */}
          <div id={outputId} className="tool-output-box">
            {open && <pre className="tool-output" tabIndex={0}>{call.output}</pre>}
          </div>
        </>
      )}
      {children}
    </div>
  );
}

/** The file an edit_file call changed, as its diff names it (for the highlighting language). */
function editedPath(call: AgentToolCall): string {
  const m = /^\+\+\+ b\/(.*)$/m.exec(call.diff ?? '');
  return m?.[1] ? `/${m[1]}` : (call.command ?? '').replace(/^edit /, '');
}

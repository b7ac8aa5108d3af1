/**
 * The selected chat's terminals: one tab each and "New terminal". Main keeps them running while
 * the user is in another chat, and the page keeps their screens (sessions.ts): coming back puts
 * the same screens back, as they are.
 */
import { useId, useMemo, type KeyboardEvent } from 'react';
import type { TerminalView } from '../../../shared/contract';
import { useSandbox, useServices, useTerminals } from '../../services/context';
import { displaySandbox, isBringingUp } from '../../stores/sandbox';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { SANDBOX_LABELS } from '../../ui/messages';
import { getTerminal } from './registry';
import { TerminalPane } from './TerminalPane';

const NONE: TerminalView[] = [];

export function TerminalArea({ chatId }: { chatId: string }) {
  const { stores } = useServices();
  const list = useTerminals((s) => s.byChat[chatId]) ?? NONE;
  const active = useTerminals((s) => s.active[chatId]) ?? null;
  const opening = useTerminals((s) => s.opening[chatId] === true);
  const error = useTerminals((s) => s.errors[chatId]);
  // A terminal that could not open because the sandbox could not start: the header says why, once.
  const sandboxFailed = useSandbox((s) => s.views[chatId]?.status?.state === 'error');
  const loaded = useTerminals((s) => s.loaded[chatId] === true);
  const baseId = useId();
  const terminals = stores.terminals.getState;

  const tabId = (t: TerminalView) => `${baseId}-tab-${t.terminalId}`;
  const panelId = (t: TerminalView) => `${baseId}-panel-${t.terminalId}`;

  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const delta = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    let target: TerminalView | undefined;
    if (delta !== 0) target = list[(index + delta + list.length) % list.length];
    else if (event.key === 'Home') target = list[0];
    else if (event.key === 'End') target = list[list.length - 1];
    if (!target) return;
    event.preventDefault();
    terminals().setActive(chatId, target.terminalId);
    document.getElementById(tabId(target))?.focus();
  };

  return (
    <section className="terminals" aria-label="Terminals">
      <div className="terminal-bar">
        <div role="tablist" aria-label="Terminals" className="tabs">
          {list.map((t, i) => {
            const selected = t.terminalId === active;
            return (
              <button
                key={t.terminalId}
                id={tabId(t)}
                type="button"
                role="tab"
                className={`tab${t.state === 'exited' ? ' ended' : ''}`}
                aria-selected={selected}
                aria-controls={panelId(t)}
                tabIndex={selected ? 0 : -1}
                onClick={(e) => {
                  terminals().setActive(chatId, t.terminalId);
                  // A mouse click means "show me this terminal": type into it. Arrow keys stay on the tabs.
                  if (e.detail > 0) requestAnimationFrame(() => getTerminal(t.terminalId)?.focus());
                }}
                onKeyDown={(e) => onTabKey(e, i)}
              >
                {t.title}
                {t.state === 'exited' && <span className="tab-note"> (ended)</span>}
              </button>
            );
          })}
        </div>
        <button type="button" className="small" onClick={() => void terminals().open(chatId)} disabled={opening} title="New terminal (Ctrl+Shift+T)">
          New terminal
        </button>
      </div>
      {error && !sandboxFailed && <ErrorAlert error={error} onDismiss={() => terminals().dismissError(chatId)} />}
      {opening && <OpeningNotice chatId={chatId} />}
      <div className="terminal-panels">
        {list.map((t) => (
          <div key={t.terminalId} id={panelId(t)} role="tabpanel" aria-labelledby={tabId(t)} className="terminal-panel" hidden={t.terminalId !== active}>
            <TerminalPane terminal={t} visible={t.terminalId === active} />
          </div>
        ))}
        {loaded && list.length === 0 && !opening && (
          <div className="terminal-empty">
            <p className="muted">No terminal open in this chat.</p>
          </div>
        )}
      </div>
    </section>
  );
}

/** While `terminal.open` runs, the sandbox may be pulling, creating or starting: say which. */
function OpeningNotice({ chatId }: { chatId: string }) {
  const view = useSandbox((s) => s.views[chatId]);
  const display = useMemo(() => displaySandbox(view), [view]);
  const percent = (display.state === 'pulling' || display.state === 'building') && display.fraction !== null ? ` ${Math.round(display.fraction * 100)}%` : '';
  const phase = isBringingUp(display.state) ? ` Sandbox: ${SANDBOX_LABELS[display.state]}${percent}.` : '';
  return (
    <p role="status" className="opening">
      <span className="spinner" aria-hidden="true" />
      Opening a terminal…{phase}
      {display.message !== null && <span className="muted"> {display.message}</span>}
    </p>
  );
}

/** One terminal tab's screen (xterm.js), with its find bar and, once it has ended, Restart. */
import '@xterm/xterm/css/xterm.css';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { TerminalView } from '../../../shared/contract';
import { useServices } from '../../services/context';
import { useTerminalScreens } from './screensContext';
import { FIND_HIGHLIGHT_LIMIT, type XtermSession } from './xtermSession';

export function TerminalPane({ terminal, visible }: { terminal: TerminalView; visible: boolean }) {
  const { stores } = useServices();
  const sessions = useTerminalScreens();
  const hostRef = useRef<HTMLDivElement>(null);
  const [session, setSession] = useState<XtermSession | null>(null);
  const [findOpen, setFindOpen] = useState(false);
  const { terminalId, chatId } = terminal;
  const exited = terminal.state === 'exited';
  const initialSize = useRef({ cols: terminal.cols, rows: terminal.rows });

  // Borrow the terminal's screen (kept from the last visit, or new) before the browser paints,
  // so coming back to a chat shows its terminal in the first frame; give it back on the way out.
  useLayoutEffect(() => {
    const slot = hostRef.current;
    if (!slot || !sessions) return;
    const { screen } = sessions.show(terminalId, chatId, slot, initialSize.current);
    screen.onFind = () => setFindOpen(true);
    setSession(screen);
    return () => {
      screen.onFind = null;
      sessions.hide(terminalId, screen);
      setSession(null);
    };
  }, [sessions, terminalId, chatId]);

  useEffect(() => {
    if (session && exited) session.setExited(terminal.exitReason);
  }, [session, exited, terminal.exitReason]);

  // Back on screen: the screen's ResizeObserver fits it to the box after the frame's layout (a
  // fit here would force a layout inside the click that switched chats: measured 40% of a switch).
  // Take the focus only when it was in the terminal area (New terminal, Restart, the terminal
  // before): a chat opens with the message box focused, since a terminal keeps Tab and Esc
  // (Ctrl+Shift+` leaves it).
  useEffect(() => {
    if (!session || !visible) return;
    const focused = document.activeElement;
    const inArea = focused !== null && hostRef.current?.closest('.terminals')?.contains(focused) === true;
    if (inArea && focused.getAttribute('role') !== 'tab') session.focus();
  }, [session, visible]);

  return (
    <div className="terminal-pane">
      <div className="terminal-toolbar">
        {exited && (
          <>
            <span className="muted terminal-ended">Ended{terminal.exitReason ? `: ${terminal.exitReason}` : ''}</span>
            <button type="button" className="primary small" onClick={() => void stores.terminals.getState().restart(terminalId)}>
              Restart terminal
            </button>
          </>
        )}
        <span className="spacer" />
        {/* The find bar sits in the toolbar's own row: opening it must not resize the terminal,
            because a resize reflows the screen and re-runs the search a moment later, which moved
            the selected match under a user already stepping through the matches. */}
        {findOpen && session && (
          <FindBar
            session={session}
            onClose={() => {
              setFindOpen(false);
              session.clearFind();
              session.focus();
            }}
          />
        )}
        <button type="button" className="small" aria-label="Find in terminal" aria-expanded={findOpen} onClick={() => setFindOpen((o) => !o)}>
          Find
        </button>
        <button type="button" className="small" aria-label="Close terminal" onClick={() => void stores.terminals.getState().close(terminalId)}>
          Close
        </button>
      </div>
      <div ref={hostRef} className="xterm-host" />
    </div>
  );
}

function FindBar({ session, onClose }: { session: XtermSession; onClose(): void }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<{ index: number; count: number } | null>(null);
  const ref = useRef<HTMLInputElement>(null);

  useEffect(() => {
    ref.current?.focus();
  }, []);
  // The marks go with the bar, however it goes (closed, or its chat left with it open).
  useEffect(() => {
    const off = session.onFindResults(setResults);
    return () => {
      off();
      session.clearFind();
    };
  }, [session]);

  const next = (q = query, incremental = false) => {
    if (q !== '') return void session.findNext(q, incremental);
    session.clearFind();
    setResults(null);
  };
  const previous = () => void session.findPrevious(query);

  return (
    <div role="search" className="find-bar" aria-label="Find in terminal">
      <input
        ref={ref}
        type="search"
        aria-label="Search terminal output"
        placeholder="Find"
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          next(e.target.value, true);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            if (e.shiftKey) previous();
            else next();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            onClose();
          }
        }}
      />
      <button type="button" className="small" aria-label="Previous match" onClick={previous}>
        ↑
      </button>
      <button type="button" className="small" aria-label="Next match" onClick={() => next()}>
        ↓
      </button>
      <button type="button" className="small" aria-label="Close find" onClick={onClose}>
        ×
      </button>
      <span role="status" className="muted">
        {query !== '' && results ? findStatus(results) : ''}
      </span>
    </div>
  );
}

/** What the find bar says after a find: "3 of 12", "No match", or past xterm's count, how many it marked. */
function findStatus({ index, count }: { index: number; count: number }): string {
  if (count === 0) return 'No match';
  if (index < 0) return `More than ${FIND_HIGHLIGHT_LIMIT.toLocaleString('en-US')} matches`;
  return `${index + 1} of ${count}`;
}

/** One terminal tab's screen (xterm.js), with its find bar and, once it has ended, Restart. */
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import type { TerminalView } from '../../../shared/contract';
import { useConnection, useServices } from '../../app/context';
import { registerTerminal } from './registry';
import { XtermSession } from './xtermSession';

export function TerminalPane({ terminal, visible }: { terminal: TerminalView; visible: boolean }) {
  const { api, stores, output } = useServices();
  const hostRef = useRef<HTMLDivElement>(null);
  const [session, setSession] = useState<XtermSession | null>(null);
  const [findOpen, setFindOpen] = useState(false);
  const epoch = useConnection((s) => s.epoch);
  const epochSeen = useRef(epoch);
  const { terminalId } = terminal;
  const exited = terminal.state === 'exited';
  const initialSize = useRef({ cols: terminal.cols, rows: terminal.rows });

  useEffect(() => {
    const host = hostRef.current;
    if (!host || !output) return;
    const s = new XtermSession(host, {
      api,
      output,
      terminalId,
      initialSize: initialSize.current,
      onFind: () => setFindOpen(true),
      onSize: (size) => stores.terminals.getState().setLastSize(size),
    });
    const unregister = registerTerminal(terminalId, s.term);
    setSession(s);
    return () => {
      unregister();
      s.dispose();
      setSession(null);
    };
  }, [api, stores, output, terminalId]);

  useEffect(() => {
    if (session && exited) session.setExited(terminal.exitReason);
  }, [session, exited, terminal.exitReason]);

  // Back on screen: fit to the box. Take the focus only when it was in the terminal area (New
  // terminal, Restart, the terminal before): a chat opens with the message box focused, since a
  // terminal keeps Tab and Esc (Ctrl+Shift+` leaves it).
  useEffect(() => {
    if (!session || !visible) return;
    session.fit();
    const focused = document.activeElement;
    const inArea = focused !== null && hostRef.current?.closest('.terminals')?.contains(focused) === true;
    if (inArea && focused.getAttribute('role') !== 'tab') session.focus();
  }, [session, visible]);

  // After a reconnect, output may have been missed: repaint from main's copy.
  useEffect(() => {
    if (!session || epoch === epochSeen.current) return;
    epochSeen.current = epoch;
    session.replay();
  }, [session, epoch]);

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
        <button type="button" className="small" aria-label="Find in terminal" aria-expanded={findOpen} onClick={() => setFindOpen((o) => !o)}>
          Find
        </button>
        <button type="button" className="small" aria-label="Close terminal" onClick={() => void stores.terminals.getState().close(terminalId)}>
          Close
        </button>
      </div>
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
      <div ref={hostRef} className="xterm-host" />
    </div>
  );
}

function FindBar({ session, onClose }: { session: XtermSession; onClose(): void }) {
  const [query, setQuery] = useState('');
  const [missing, setMissing] = useState(false);
  const ref = useRef<HTMLInputElement>(null);

  useEffect(() => {
    ref.current?.focus();
  }, []);

  const next = (q = query, incremental = false) => setMissing(q !== '' && !session.findNext(q, incremental));
  const previous = () => setMissing(query !== '' && !session.findPrevious(query));

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
      {missing && (
        <span role="status" className="muted">
          No match
        </span>
      )}
    </div>
  );
}

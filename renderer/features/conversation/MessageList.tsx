/**
 * The conversation as a virtualized feed: only the rows in view (and a few around them) are in
 * the DOM, so a long chat stays smooth. It starts at the latest message and follows new output
 * while the user is at the bottom; once they scroll up it stays put and offers "Jump to latest".
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { AgentMessage } from '../../../shared/contract';
import { MessageView } from './MessageView';
import { buildTree } from './tree';

/** How close to the bottom (px) still counts as "at the bottom". */
const STICK_THRESHOLD = 48;

export function MessageList({ messages, running }: { messages: readonly AgentMessage[]; running: boolean }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const tree = useMemo(() => buildTree(messages), [messages]);
  const turnEnds = useMemo(() => endsOfTurns(tree.top), [tree]);
  // Read from the scroll position itself on each scroll: the virtualizer re-renders only when
  // its window of rows changes, which a few pixels of scrolling may not do.
  const [atEnd, setAtEnd] = useState(true);
  const { top } = tree;

  const virtualizer = useVirtualizer({
    count: top.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 96,
    getItemKey: (index) => top[index]?.id ?? index,
    overscan: 6,
    // Chat-style: keep the bottom pinned while the last message grows, follow appended ones.
    anchorTo: 'end',
    followOnAppend: true,
    scrollEndThreshold: STICK_THRESHOLD,
  });

  useLayoutEffect(() => {
    virtualizer.scrollToEnd();
  }, [virtualizer]);

  const items = virtualizer.getVirtualItems();

  return (
    <div className="message-list">
      <div
        ref={scrollRef}
        className="message-scroll"
        // Scrollable, so reachable by keyboard (WCAG 2.1.1): focus it, then arrows/Page keys scroll.
        tabIndex={0}
        role="region"
        aria-label="Message history"
        onScroll={(e) => {
          const el = e.currentTarget;
          setAtEnd(el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_THRESHOLD);
        }}
      >
        <div role="feed" aria-label="Messages" aria-busy={running} className="message-feed" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const message = top[item.index];
            if (!message) return null;
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="message-row"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <MessageView message={message} tree={tree} posinset={item.index + 1} setsize={top.length} turnOf={turnEnds.get(message.id) ?? null} />
              </div>
            );
          })}
        </div>
      </div>
      {!atEnd && (
        <button type="button" className="small jump-latest" onClick={() => virtualizer.scrollToEnd()}>
          Jump to latest
        </button>
      )}
    </div>
  );
}

/**
 * Which top-level message ends which turn: a turn starts at the user's message and ends at the
 * message before the next one of theirs. Maps the last message's id to the user's message's id.
 */
export function endsOfTurns(top: readonly AgentMessage[]): Map<string, string> {
  const ends = new Map<string, string>();
  let start: string | null = null;
  top.forEach((m, i) => {
    if (m.role === 'user') start = m.id;
    const next = top[i + 1];
    if (start !== null && (next === undefined || next.role === 'user')) ends.set(m.id, start);
  });
  return ends;
}

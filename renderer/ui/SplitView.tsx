/**
 * Two panes side by side (or one above the other) with a separator between them that the pointer
 * drags and the arrow keys move (role separator, its value the first pane's share in percent).
 * The share is remembered. Without a second pane the first takes it all, and stays mounted as
 * the second comes and goes (what it holds, a terminal say, is not made again).
 */
import { useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';

const MIN = 20;
const MAX = 80;
const STEP = 5;

function clamp(percent: number): number {
  return Math.min(MAX, Math.max(MIN, Math.round(percent)));
}

function remembered(key: string, fallback: number): number {
  try {
    const value = Number(window.localStorage.getItem(key));
    return value >= MIN && value <= MAX ? value : fallback;
  } catch {
    return fallback;
  }
}

function remember(key: string, percent: number): void {
  try {
    window.localStorage.setItem(key, String(percent));
  } catch {
    // Storage may be unavailable (a locked-down profile): the share just is not remembered.
  }
}

export interface SplitViewProps {
  first: ReactNode;
  /** None: the first pane alone. */
  second?: ReactNode;
  /** 'row' (the default): side by side, a vertical separator; 'column': one above the other. */
  direction?: 'row' | 'column';
  /** The separator's accessible name. */
  label: string;
  /** Where the share is remembered (localStorage). */
  storageKey: string;
  /** The first pane's share, in percent, until the user moves the separator. */
  initialPercent?: number;
}

export function SplitView({ first, second, direction = 'row', label, storageKey, initialPercent = 50 }: SplitViewProps) {
  const row = direction === 'row';
  const [percent, setPercent] = useState(() => remembered(storageKey, initialPercent));
  const rootRef = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);

  const change = (next: number, save = true) => {
    const value = clamp(next);
    setPercent(value);
    if (save) remember(storageKey, value);
  };

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const box = rootRef.current?.getBoundingClientRect();
    if (!dragging.current || !box || (row ? box.width : box.height) === 0) return;
    change(row ? ((event.clientX - box.left) / box.width) * 100 : ((event.clientY - box.top) / box.height) * 100, false);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const [less, more] = row ? ['ArrowLeft', 'ArrowRight'] : ['ArrowUp', 'ArrowDown'];
    const next = event.key === less ? percent - STEP : event.key === more ? percent + STEP : event.key === 'Home' ? MIN : event.key === 'End' ? MAX : null;
    if (next === null) return;
    event.preventDefault();
    change(next);
  };

  const alone = second === undefined || second === null || second === false;
  return (
    <div ref={rootRef} className={row ? 'split' : 'split split-column'}>
      <div className={alone ? 'split-pane split-rest' : 'split-pane'} style={alone ? undefined : { flexBasis: `${percent}%` }}>
        {first}
      </div>
      {!alone && (
        <>
          <div
            role="separator"
            aria-orientation={row ? 'vertical' : 'horizontal'}
            aria-label={label}
            aria-valuemin={MIN}
            aria-valuemax={MAX}
            aria-valuenow={percent}
            tabIndex={0}
            className="split-handle"
            onKeyDown={onKeyDown}
            onPointerDown={(event) => {
              dragging.current = true;
              event.currentTarget.setPointerCapture(event.pointerId);
            }}
            onPointerMove={onPointerMove}
            onPointerUp={() => {
              dragging.current = false;
              remember(storageKey, percent);
            }}
            onPointerCancel={() => {
              dragging.current = false;
            }}
          />
          <div className="split-pane split-rest">{second}</div>
        </>
      )}
    </div>
  );
}

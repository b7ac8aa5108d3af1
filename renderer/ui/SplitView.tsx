/**
 * Two panes side by side with a separator between them that the pointer drags and the arrow keys
 * move (role separator, its value the first pane's share in percent). The share is remembered.
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
  second: ReactNode;
  /** The separator's accessible name. */
  label: string;
  /** Where the share is remembered (localStorage). */
  storageKey: string;
  /** The first pane's share, in percent, until the user moves the separator. */
  initialPercent?: number;
}

export function SplitView({ first, second, label, storageKey, initialPercent = 50 }: SplitViewProps) {
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
    if (!dragging.current || !box || box.width === 0) return;
    change(((event.clientX - box.left) / box.width) * 100, false);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const next =
      event.key === 'ArrowLeft' ? percent - STEP : event.key === 'ArrowRight' ? percent + STEP : event.key === 'Home' ? MIN : event.key === 'End' ? MAX : null;
    if (next === null) return;
    event.preventDefault();
    change(next);
  };

  return (
    <div ref={rootRef} className="split">
      <div className="split-pane" style={{ flexBasis: `${percent}%` }}>
        {first}
      </div>
      <div
        role="separator"
        aria-orientation="vertical"
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
    </div>
  );
}

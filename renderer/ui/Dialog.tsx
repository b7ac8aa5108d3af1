/** A modal dialog: role dialog named by its heading, focus kept inside, Escape closes. */
import { useEffect, useId, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * While a modal is open, everything else on the page is inert and hidden from assistive
 * technology (so "find the button named X" finds the dialog's, not the one behind it).
 */
function hideOthers(keep: Element): () => void {
  const changed: Array<{ el: HTMLElement; ariaHidden: string | null; inert: boolean }> = [];
  for (const el of Array.from(document.body.children)) {
    if (el === keep || !(el instanceof HTMLElement) || el.tagName === 'SCRIPT') continue;
    changed.push({ el, ariaHidden: el.getAttribute('aria-hidden'), inert: el.inert });
    el.setAttribute('aria-hidden', 'true');
    el.inert = true;
  }
  return () => {
    for (const { el, ariaHidden, inert } of changed) {
      if (ariaHidden === null) el.removeAttribute('aria-hidden');
      else el.setAttribute('aria-hidden', ariaHidden);
      el.inert = inert;
    }
  };
}

/** Open dialogs, innermost last: Escape closes only the innermost. */
const openDialogs: Array<{ close(): void }> = [];

export interface DialogProps {
  title: ReactNode;
  onClose(): void;
  children: ReactNode;
  className?: string;
  /** A sentence under the title that describes the dialog (aria-describedby). */
  description?: ReactNode;
}

export function Dialog({ title, onClose, children, className, description }: DialogProps) {
  const titleId = useId();
  const descriptionId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const overlayRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const overlay = overlayRef.current;
    const restore = overlay ? hideOthers(overlay) : () => {};
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = ref.current;
    const first = root?.querySelector<HTMLElement>('[data-autofocus]') ?? root?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? root)?.focus();
    return () => {
      restore();
      if (previous?.isConnected) previous.focus();
    };
  }, []);

  // Escape closes the innermost dialog even when the focus has fallen out of it (to the body,
  // after the focused control re-rendered away).
  const closeRef = useRef(onClose);
  useLayoutEffect(() => {
    closeRef.current = onClose;
  });
  useEffect(() => {
    const entry = { close: () => closeRef.current() };
    openDialogs.push(entry);
    const onEscape = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || openDialogs[openDialogs.length - 1] !== entry) return;
      event.preventDefault();
      event.stopPropagation();
      entry.close();
    };
    document.addEventListener('keydown', onEscape);
    return () => {
      document.removeEventListener('keydown', onEscape);
      const at = openDialogs.indexOf(entry);
      if (at !== -1) openDialogs.splice(at, 1);
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Tab' || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div
      ref={overlayRef}
      className="overlay"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={description === undefined ? undefined : descriptionId}
        className={`dialog ${className ?? ''}`}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        {description !== undefined && (
          <p id={descriptionId} className="dialog-description">
            {description}
          </p>
        )}
        {children}
      </div>
    </div>,
    document.body,
  );
}

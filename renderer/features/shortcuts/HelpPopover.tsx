/** The "?" button and the keyboard shortcuts it lists. */
import { useEffect, useId, useRef, useState } from 'react';
import { SHORTCUTS } from './keymap';

export function HelpPopover() {
  const [open, setOpen] = useState(false);
  const popoverId = useId();
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (ref.current && e.target instanceof Node && !ref.current.contains(e.target)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  return (
    <div
      className="help"
      ref={ref}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          setOpen(false);
        }
      }}
    >
      <button type="button" className="icon-button" aria-label="Keyboard shortcuts" aria-expanded={open} aria-controls={popoverId} onClick={() => setOpen((o) => !o)}>
        ?
      </button>
      {open && (
        <div id={popoverId} className="popover" role="dialog" aria-labelledby={titleId}>
          <h2 id={titleId} className="popover-title">
            Keyboard shortcuts
          </h2>
          <table className="shortcuts">
            <tbody>
              {SHORTCUTS.map((s) => (
                <tr key={s.id}>
                  <td>
                    <kbd>{s.keys}</kbd>
                  </td>
                  <td>{s.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/**
 * Asks before attaching or detaching a folder would stop what runs in the chat's terminals (the
 * sandbox is recreated with the new folders; the terminals start again in the same tabs, but
 * what ran in them does not).
 */
import type { Response } from '../../api/types';
import { Dialog } from '../../ui/Dialog';

export type BusyTerminals = Response<'terminal.busy'>['terminals'];

export function StopProcessesDialog({
  action,
  busy,
  reason = null,
  onConfirm,
  onClose,
}: {
  /** 'stop': Stop in the sandbox details. */
  action: 'attach' | 'detach' | 'stop';
  busy: BusyTerminals;
  /** Main's word on why the sandbox is recreated (workspace.attachPreview), when it gave one. */
  reason?: string | null;
  onConfirm(): void;
  onClose(): void;
}) {
  const verb = action === 'attach' ? 'Attaching' : 'Detaching';
  const why = reason ?? (action === 'stop' ? "Stopping this chat's sandbox ends what runs in it." : `${verb} a folder recreates this chat's sandbox.`);
  return (
    <Dialog
      title="Stop what runs in the terminals?"
      onClose={onClose}
      description={
        action === 'stop' ? `${why} It starts again with the next command or terminal, but these commands stop:` : `${why} Its terminals start again in the same tabs, but these commands stop:`
      }
    >
      <ul className="busy-terminals" aria-label="Running in the terminals">
        {busy.map((t) => (
          <li key={t.terminalId}>
            <strong>{t.title}</strong>
            <ul>
              {t.processes.map((p, i) => (
                <li key={i}>
                  <code>{p}</code>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      <div className="dialog-buttons">
        <button type="button" onClick={onClose} data-autofocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {action === 'attach' ? 'Stop them and attach' : action === 'detach' ? 'Stop them and detach' : 'Stop them and the sandbox'}
        </button>
      </div>
    </Dialog>
  );
}

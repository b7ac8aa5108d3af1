/**
 * A chat's attached folders (read-only or read-write, each with a detach button) and
 * "Attach folder…": the desktop's native dialog, or the in-app folder browser on the browser host.
 */
import { useId, useState } from 'react';
import type { ChatView } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useServices } from '../../app/context';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { FolderBrowserDialog } from './FolderBrowserDialog';

export function Attachments({ chat }: { chat: ChatView }) {
  const { api, stores } = useServices();
  const [readOnly, setReadOnly] = useState(false);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [browsing, setBrowsing] = useState(false);
  const [busy, setBusy] = useState(false);
  const readOnlyId = useId();

  const begin = () => {
    setError(null);
    setNotice(null);
    setBusy(true);
  };

  const pick = async () => {
    begin();
    try {
      const result = await api.pickFolder(chat.id, readOnly);
      // 'picked': main attached it and emits chats.changed, which refetches the list.
      if (result === 'browse') setBrowsing(true);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  /** Attach or detach: both answer with the chat's folders and, maybe, a notice. */
  const change = async (request: () => Promise<{ attachments: ChatView['attachments']; notice: string | null }>) => {
    begin();
    try {
      const result = await request();
      stores.chats.getState().setAttachments(chat.id, result.attachments);
      setNotice(result.notice);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  const attach = async (path: string) => {
    setBrowsing(false);
    await change(() => api.call('workspace.attach', { chatId: chat.id, path, readOnly }));
  };

  const detach = (path: string) => change(() => api.call('workspace.detach', { chatId: chat.id, path }));

  return (
    <section className="attachments" aria-label="Attached folders">
      {chat.attachments.length > 0 ? (
        <ul className="attachment-list" aria-label="Attached folders">
          {chat.attachments.map((a) => (
            <li key={a.hostPath} className="attachment">
              <span className="attachment-path" title={a.hostPath}>
                {a.hostPath}
              </span>
              <span className="muted" aria-hidden="true">
                →
              </span>
              <code className="attachment-target">{a.containerPath ?? 'not mounted'}</code>
              <span className={`badge ${a.readOnly ? 'badge-ro' : 'badge-rw'}`}>{a.readOnly ? 'read-only' : 'read-write'}</span>
              <button type="button" className="small" aria-label={`Detach ${a.hostPath}`} disabled={busy} onClick={() => void detach(a.hostPath)}>
                Detach
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No folder attached: this chat's sandbox sees none of your files.</p>
      )}
      <div className="attach-controls">
        <button type="button" onClick={() => void pick()} disabled={busy}>
          Attach folder…
        </button>
        <input id={readOnlyId} type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} />
        <label htmlFor={readOnlyId}>Read-only</label>
      </div>
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {notice !== null && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {browsing && <FolderBrowserDialog readOnly={readOnly} onChoose={(path) => void attach(path)} onClose={() => setBrowsing(false)} />}
    </section>
  );
}

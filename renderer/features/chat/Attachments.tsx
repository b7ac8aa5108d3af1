/**
 * A chat's attached folders (Review, read-only or read-write, each with a detach button) and
 * "Attach folder…": first how (the mode picker), then which folder: the desktop's native dialog,
 * or the in-app folder browser on the browser host.
 */
import { useRef, useState } from 'react';
import type { AttachMode, ChatView } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import type { Picked, Response } from '../../api/types';
import { useActions } from '../../services/context';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useFocusAfter } from '../../ui/useFocusAfter';
import { focusConversation } from '../conversation';
import { MESSAGES } from '../../ui/messages';
import { AttachModeDialog, DEFAULT_CHOICE, type AttachChoice, CopyProgressLine, ReviewCopySummary } from '../changes';
import { folderActions } from './actions';
import { FolderBrowserDialog } from './FolderBrowserDialog';
import { StopProcessesDialog, type BusyTerminals } from './StopProcessesDialog';
import type { FutureNotice } from './useUntilRecreated';

const MODE_BADGES: Record<AttachMode, { text: string; className: string }> = {
  review: { text: 'review', className: 'badge-review' },
  readwrite: { text: 'read-write', className: 'badge-rw' },
  readonly: { text: 'read-only', className: 'badge-ro' },
};

/** `notice`: main's word on what the change does to the sandbox, shown by the header under its row. */
export function Attachments({ chat, notice }: { chat: ChatView; notice: FutureNotice }) {
  const folders = useActions(folderActions);
  /** The last choice, offered again next time. */
  const [choice, setChoice] = useState<AttachChoice>(DEFAULT_CHOICE);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [step, setStep] = useState<'mode' | 'browse' | null>(null);
  const [busy, setBusy] = useState(false);
  /** Attaching or detaching would stop these: asked first. */
  const [confirm, setConfirm] = useState<{ action: 'attach' | 'detach'; running: BusyTerminals; reason: string | null; go(): void; cancel?(): void } | null>(null);
  // Attached (or not): the user's next move is to ask the agent or use the folder.
  useFocusAfter(busy, focusConversation);
  /**
   * The user already agreed to stop what runs, for the attach under way: main's token for it
   * (judged for the mode before the folder was chosen, so good for the folder then chosen), and
   * not asked again once the folder is known.
   */
  const agreed = useRef<string | null>(null);

  /**
   * Asks main what the change does (workspace.attachPreview: main decides for every transport)
   * and runs `go` with its token at once when it stops nothing that runs (the container is kept,
   * e.g. a Review-mode copy filling or leaving a warm sandbox's slot, or nothing runs in the
   * chat's terminals), else after the user agrees. `asked`: the user was asked and agreed.
   */
  const askFirst = async (action: 'attach' | 'detach', about: { mode?: AttachMode; path?: string }, go: (confirm: string | undefined, asked: boolean) => void) => {
    let preview: Response<'workspace.attachPreview'>;
    try {
      preview = await folders.preview(chat.id, action, about);
    } catch (e) {
      // Main could not judge the change (the chat is gone, say): the change would fail alike.
      setError(errorInfo(e));
      return;
    }
    const token = preview.token ?? undefined;
    if (!preview.needsConfirmation) go(token, false);
    else setConfirm({ action, running: preview.running, reason: preview.reason, go: () => go(token, true) });
  };

  const begin = () => {
    setError(null);
    notice.show(null);
    notice.arm();
    setBusy(true);
  };

  const pick = async (chosen: AttachChoice) => {
    setChoice(chosen);
    setStep(null);
    agreed.current = null;
    // The folder is not chosen yet: main judges the mode (a folder that fits a warm sandbox's slot).
    await askFirst('attach', { mode: chosen.mode }, (token, asked) => {
      if (asked) agreed.current = token ?? null;
      void pickNow(chosen);
    });
  };

  const pickNow = async (chosen: AttachChoice) => {
    begin();
    /** Set when the folder main holds is answered from here on (settle ends the busy state). */
    let handedOver = false;
    try {
      const result = await folders.pick(chat.id, chosen);
      if (typeof result === 'object' && 'notice' in result) {
        setStep(null);
        notice.show(result.notice);
        return;
      }
      if (typeof result === 'object') {
        // The desktop's dialog chose a folder whose attach stops what runs (main judged it): main
        // holds it until this page answers, after asking (unless the user already agreed for this attach).
        setStep(null);
        const { token, reason, running } = result.confirm;
        const answer = (attach: boolean) => void settle(() => folders.answerPicked(token, attach));
        handedOver = true;
        if (agreed.current !== null || running.length === 0) answer(true);
        else setConfirm({ action: 'attach', running, reason, go: () => answer(true), cancel: () => answer(false) });
        return;
      }
      // 'picked': main attached it and emits chats.changed, which refetches the list.
      setStep(result === 'browse' ? 'browse' : null);
    } catch (e) {
      setStep(null);
      setError(errorInfo(e));
    } finally {
      if (!handedOver) setBusy(false);
    }
  };

  /** The desktop's answer to a folder main holds: attached (chats.changed refetches the list) or let go. */
  const settle = async (answer: () => Promise<Picked | 'cancelled'>) => {
    begin();
    try {
      const result = await answer();
      if (typeof result === 'object') notice.show(result.notice);
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  /** Attach or detach: the chat's folders are in the store then, and main's notice, if any, is shown. */
  const change = async (request: () => Promise<string | null>) => {
    begin();
    try {
      notice.show(await request());
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  const attach = async (path: string) => {
    setStep(null);
    const go = (confirm: string | undefined) => void change(() => folders.attach(chat.id, path, choice, confirm));
    // Asked again now that the folder is known (a git history too large for the slot needs a new
    // container), unless the user already agreed to stop what runs: main's token for that says so.
    const token = agreed.current;
    agreed.current = null;
    if (token !== null) go(token);
    else await askFirst('attach', { mode: choice.mode, path }, go);
  };

  const detach = (path: string) =>
    askFirst('detach', { path }, (confirm) => void change(() => folders.detach(chat.id, path, confirm)));

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
              <span className={`badge ${MODE_BADGES[a.mode].className}`}>{MODE_BADGES[a.mode].text}</span>
              <button type="button" className="small" aria-label={`Detach ${a.hostPath}`} disabled={busy} onClick={() => void detach(a.hostPath)}>
                Detach
              </button>
              {a.review && <ReviewCopySummary info={a.review} />}
              {a.writeWarning !== null && (
                <p role="alert" className="warning attachment-warning">
                  {a.writeWarning}
                </p>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted attachments-none">{MESSAGES.noFolder}</p>
      )}
      <div className="attach-controls">
        <button type="button" onClick={() => setStep('mode')} disabled={busy}>
          Attach folder…
        </button>
      </div>
      <CopyProgressLine chatId={chat.id} />
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {step === 'mode' && <AttachModeDialog initial={choice} busy={busy} onChooseFolder={(c) => void pick(c)} onClose={() => setStep(null)} />}
      {confirm && (
        <StopProcessesDialog
          action={confirm.action}
          busy={confirm.running}
          reason={confirm.reason}
          onClose={() => {
            setConfirm(null);
            confirm.cancel?.();
          }}
          onConfirm={() => {
            setConfirm(null);
            confirm.go();
          }}
        />
      )}
      {step === 'browse' && <FolderBrowserDialog mode={choice.mode} onChoose={(path) => void attach(path)} onClose={() => setStep(null)} />}
    </section>
  );
}

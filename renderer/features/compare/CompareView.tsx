/**
 * Compare attempts: two chats with the same folder in Review mode, the files each changed and
 * their diffs side by side; "Apply this attempt and close the others" applies one through
 * Review's Apply and deletes the other attempts' chats.
 */
import { useEffect, useMemo, useState } from 'react';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useChats, useServices } from '../../services/context';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { MESSAGES } from '../../ui/messages';
import { FileDiff } from '../changes';
import { compareActions, type Attempt } from './actions';
import { attemptsOn, compareRows } from './compareModel';
import './compare.css';

export function CompareView({ chatId, hostPath, onClose }: { chatId: string; hostPath: string; onClose: () => void }) {
  const { api, stores } = useServices();
  const chats = useChats((s) => s.chats);
  const chat = chats.find((c) => c.id === chatId);
  const candidates = useMemo(() => (chat ? attemptsOn(chats, chat, hostPath) : []), [chats, chat, hostPath]);
  const [otherId, setOtherId] = useState<string | null>(candidates[1]?.id ?? null);
  const [attempts, setAttempts] = useState<Attempt[] | null>(null);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const actions = compareActions(api, stores);
  const pair = candidates.filter((c) => c.id === chatId || c.id === otherId);

  useEffect(() => {
    if (pair.length < 2) return;
    let live = true;
    actions.load(pair, hostPath).then((a) => live && setAttempts(a), (e: unknown) => live && setError(errorInfo(e)));
    return () => {
      live = false;
    };
  }, [chatId, otherId, hostPath]);

  const keep = async (keepId: string) => {
    setError(null);
    try {
      setResult(await actions.keep(keepId, hostPath, candidates.filter((c) => c.id !== keepId).map((c) => c.id)));
    } catch (e) {
      setError(errorInfo(e));
    }
  };
  const [left, right] = attempts ?? [];
  const rows = left && right ? compareRows(left.copy?.files ?? [], right.copy?.files ?? []) : [];

  return (
    <Dialog title="Compare attempts" onClose={onClose} className="compare-dialog" description={`Each chat's changes to ${hostPath}.`}>
      {candidates.length < 2 ? (
        <p>{MESSAGES.compareNone}</p>
      ) : (
        <>
          {candidates.length > 2 && (
            <label>
              Compare with{' '}
              <select value={otherId ?? ''} onChange={(e) => setOtherId(e.target.value)}>
                {candidates.slice(1).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.title}
                  </option>
                ))}
              </select>
            </label>
          )}
          <div className="compare-grid" role="table" aria-label="Attempts side by side">
            <div role="row" className="compare-row compare-head">
              {[left, right].map((a, i) => (
                <div role="columnheader" key={a?.chatId ?? i}>
                  <strong>{a?.title ?? '…'}</strong>
                  {a && (
                    <>
                      {' '}
                      <span className="muted">{a.copy?.files.length ?? 0} files changed</span>{' '}
                      <button type="button" className="small" onClick={() => void keep(a.chatId)} aria-label={`${MESSAGES.keepAttempt}: ${a.title}`}>
                        {MESSAGES.keepAttempt}
                      </button>
                    </>
                  )}
                </div>
              ))}
            </div>
            {rows.map((r) => (
              <div role="row" key={r.path} className="compare-row" aria-label={r.path}>
                {[r.left, r.right].map((f, i) => (
                  <div role="cell" key={i}>
                    <div className="compare-path">{r.path}</div>
                    {f ? <FileDiff path={f.path} diff={f.diff} binary={f.binary} layout="unified" /> : <p className="muted">{MESSAGES.compareUnchanged}</p>}
                  </div>
                ))}
              </div>
            ))}
          </div>
        </>
      )}
      {result && <p role="status">{result}</p>}
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      <div className="dialog-buttons">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

/** The images Berth prepares in the background (full sandbox image, egress proxy, setup commands), with their progress. */
import { useEffect, useState } from 'react';
import type { ImagePreparation } from '../../../shared/imagePreparation';
import { useActions } from '../../services/context';
import { statusActions } from './actions';
import { ProgressBar } from '../../ui/ProgressBar';

export function PreparationItems() {
  const status = useActions(statusActions);
  const [items, setItems] = useState<ImagePreparation[]>([]);
  useEffect(() => status.watchPreparations(setItems), [status]);
  return (
    <>
      {items.map((p) => (
        <div key={p.id} className="status-item" role="status" aria-label={p.label}>
          <span className={`state-dot ${p.state === 'ready' ? 'state-running' : p.state === 'failed' ? 'state-error' : 'state-starting'}`} aria-hidden="true" />
          {p.label}: {p.state === 'preparing' ? <span className="muted" title={p.message}>preparing…</span> : p.state === 'ready' ? <span className="muted">ready</span> : <span className="engine-message">{p.message}</span>}
          {p.state === 'preparing' && <ProgressBar fraction={p.fraction} label={`Preparing ${p.label}`} text={p.message} />}
        </div>
      ))}
    </>
  );
}

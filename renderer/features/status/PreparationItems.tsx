/** The images Berth prepares in the background (full sandbox image, egress proxy, setup commands), with their progress. */
import { useEffect, useState } from 'react';
import type { ImagePreparation } from '../../../shared/imagePreparation';
import { useServices } from '../../services/context';
import { ProgressBar } from '../../ui/ProgressBar';

export function PreparationItems() {
  const { api } = useServices();
  const [items, setItems] = useState<ImagePreparation[]>([]);
  useEffect(() => {
    let live = true;
    const off = api.on('images.status', ({ preparations }) => setItems(preparations));
    api.call('images.status', {}).then(
      ({ preparations }) => live && setItems(preparations),
      () => undefined,
    );
    return () => {
      live = false;
      off();
    };
  }, [api]);
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

/**
 * The first New chat's one question: how open the sandbox's network should be (Locked down,
 * Balanced, Open; shared/egressPresets STARTING_POINTS), each with one line of what it allows.
 * Main decides whether to ask (network.startingPoint) and saves the answer as the default
 * profile's network (network.chooseStartingPoint); it is never asked again, and the profile form
 * changes it later. It asks in the chats store's New chat, whichever control started it.
 */
import { useEffect, useId, useState } from 'react';
import type { StartingPointId } from '../../../shared/contract';
import { STARTING_POINTS } from '../../../shared/egressPresets';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions, useServices } from '../../services/context';
import { networkActions } from './actions';
import { Dialog } from '../../ui/Dialog';
import { ErrorAlert } from '../../ui/ErrorAlert';
import './startingPoint.css';

export function StartingPointQuestion() {
  const { stores } = useServices();
  const network = useActions(networkActions);
  /** While asked: what the waiting New chat is told (true: go on, false: the user went back). */
  const [asking, setAsking] = useState<((go: boolean) => void) | null>(null);

  useEffect(() => {
    const gate = async (profile: string): Promise<boolean> => {
      // The question is never in the way of New chat: without an answer from main it is not asked.
      const ask = await network.shouldAsk(profile);
      return ask ? new Promise<boolean>((resolve) => setAsking(() => resolve)) : true;
    };
    stores.chats.getState().setCreateGate(gate);
    return () => stores.chats.getState().setCreateGate(null);
  }, [network, stores]);

  if (asking === null) return null;
  const done = (go: boolean) => {
    setAsking(null);
    asking(go);
  };
  return <StartingPointDialog onDone={done} />;
}

function StartingPointDialog({ onDone }: { onDone(go: boolean): void }) {
  const network = useActions(networkActions);
  const name = useId();
  const [choice, setChoice] = useState<StartingPointId>('balanced');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiErrorInfo | null>(null);

  const answer = async () => {
    setBusy(true);
    setError(null);
    try {
      await network.choose(choice);
      onDone(true);
    } catch (e) {
      setError(errorInfo(e));
      setBusy(false);
    }
  };

  return (
    <Dialog
      title="How open should your sandboxes' network be?"
      onClose={() => onDone(false)}
      description="Berth asks this once, for the default profile. You can change it later in Profiles, under Network."
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void answer();
        }}
      >
        <fieldset className="starting-points" disabled={busy}>
          <legend>Network</legend>
          {STARTING_POINTS.map((p) => (
            <label key={p.id}>
              <input type="radio" name={name} value={p.id} checked={choice === p.id} onChange={() => setChoice(p.id)} data-autofocus={choice === p.id ? true : undefined} />
              <span>
                <strong>{p.label}</strong> <span className="point-line">{p.line}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
        <div className="dialog-buttons">
          <button type="button" onClick={() => onDone(false)} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            Start the chat
          </button>
        </div>
      </form>
    </Dialog>
  );
}

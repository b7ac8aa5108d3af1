/**
 * A profile's API key: paste it and it is stored with the profile's own Save (main encrypts it
 * and binds it to the provider's origin as saved), or remove it. What main reports is whether one is stored and for which origin; the
 * key itself is never read back, and the field is cleared once it is saved.
 */
import { useEffect, useId, useImperativeHandle, useRef, useState, type Ref } from 'react';
import type { KeyStatus } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useServices } from '../../services/context';
import { ErrorAlert } from '../../ui/ErrorAlert';

/** What the profile form's Save does with the field: take the pasted key, then report it stored. */
export interface AgentKeyHandle {
  /** The pasted key, or null when none was pasted. */
  pending(): string | null;
  stored(status: KeyStatus): void;
}

export interface AgentKeyFieldProps {
  /** The saved profile; null for a new one (its key is stored once the profile is). */
  profile: string | null;
  handle: Ref<AgentKeyHandle>;
  /** The provider URL as typed in the form, maybe not saved yet. */
  formBaseUrl: string;
}

function originOf(url: string | null): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

// Worded without "saved": the form's own "Saved." must stay the only text that says so.
function describe(status: KeyStatus | null): string {
  if (status === null) return 'Checking for a stored key…';
  if (!status.hasKey) return 'No API key is stored for this profile.';
  return status.origin ? `A key is stored for ${status.origin}; it is sent nowhere else.` : 'A key is stored.';
}

export function AgentKeyField({ profile, handle, formBaseUrl }: AgentKeyFieldProps) {
  const { api } = useServices();
  // Uncontrolled on purpose: a controlled value would be mirrored into the input's value
  // attribute, putting the key in the page's DOM. Only whether there is text is kept.
  const input = useRef<HTMLInputElement>(null);
  const [hasText, setHasText] = useState(false);
  const clearInput = () => {
    if (input.current) input.current.value = '';
    setHasText(false);
  };
  const [status, setStatus] = useState<KeyStatus | null>(null);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [busy, setBusy] = useState(false);
  const statusId = useId();
  const movedAway = status?.hasKey === true && status.origin !== null && originOf(formBaseUrl.trim()) !== status.origin;

  const generation = useRef(0);
  useImperativeHandle(handle, () => ({
    pending: () => {
      const key = input.current?.value ?? '';
      return key.trim() === '' ? null : key;
    },
    stored: (next) => {
      // A status fetch still in flight from before the save must not overwrite this one.
      generation.current++;
      setStatus(next);
      clearInput();
    },
  }));

  useEffect(() => {
    if (profile === null) {
      setStatus({ profile: '', hasKey: false, origin: null });
      return;
    }
    let live = true;
    const mine = generation.current;
    api.call('agent.keyStatus', { profile }).then(
      (s) => live && generation.current === mine && setStatus(s),
      (e: unknown) => live && setError(errorInfo(e)),
    );
    return () => {
      live = false;
    };
  }, [api, profile]);

  const run = async (request: () => Promise<KeyStatus>) => {
    setBusy(true);
    setError(null);
    try {
      setStatus(await request());
      clearInput();
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="agent-key">
      <label className="field">
        <span className="field-label">API key</span>
        <input
          type="password"
          ref={input}
          name="berth-api-key"
          onChange={(e) => setHasText(e.target.value.trim() !== '')}
          autoComplete="off"
          spellCheck={false}
          aria-describedby={statusId}
          placeholder={status?.hasKey ? 'Paste a new key to replace it' : 'Paste the key'}
        />
      </label>
      <div className="agent-key-buttons">
        <button
          type="button"
          className="danger"
          onClick={() => profile !== null && void run(() => api.call('agent.clearKey', { profile }))}
          disabled={busy || !status?.hasKey}
        >
          Remove key
        </button>
      </div>
      <p id={statusId} className="muted agent-key-status" aria-live="polite">
        {describe(status)}
        {hasText && ' The pasted key is stored when you save the profile.'}
        {!hasText && movedAway && ' The provider URL now points elsewhere: paste the key again for it and save.'}
      </p>
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
    </div>
  );
}

/** The profile form's network part: the egress mode, what it allows in plain words, and the allowlist. */
import { useId, type Ref } from 'react';
import type { EgressMode, EngineSetting } from '../../../shared/contract';
import { EGRESS_PRESETS, hasPreset, withPreset } from '../../../shared/egressPresets';
import { allowFromText, allowProblems, allowlistEngineNote, EGRESS_EXPLAINED, EGRESS_LABELS } from './egressText';

/** The two fields of a profile's form this part edits (the form's values hold them under these names). */
export interface EgressValues {
  egress: EgressMode;
  /** The allowlist as the user types it, one entry a line. */
  egressAllow: string;
}

export function EgressFields({
  values,
  set,
  showErrors,
  allowRef,
  networkRef,
  engineKind,
}: {
  values: EgressValues;
  set: { (key: 'egress', value: EgressMode): void; (key: 'egressAllow', value: string): void };
  /** After a save was tried: the entries main would refuse are named here, by line (and only here). */
  showErrors: boolean;
  /** The allowlist's text area: the form puts the focus there when a save finds entries to fix. */
  allowRef?: Ref<HTMLTextAreaElement>;
  /** The network's select: the form puts the focus there when a save finds it does not fit the engine. */
  networkRef?: Ref<HTMLSelectElement>;
  /** The profile's engine: the allowlist runs on this computer's Docker only (said as soon as it does not fit). */
  engineKind: EngineSetting['kind'];
}) {
  const errorsId = useId();
  const engineNoteId = useId();
  const problems = showErrors && values.egress === 'allowlist' ? allowProblems(values.egressAllow) : [];
  const engineNote = allowlistEngineNote(values.egress, engineKind);
  return (
    <div className="egress-fields" style={{ gridColumn: '1 / -1' }}>
      <label className="field">
        <span>Network</span>
        <select
          ref={networkRef}
          value={values.egress}
          onChange={(e) => set('egress', e.target.value as EgressMode)}
          aria-invalid={engineNote ? true : undefined}
          aria-describedby={engineNote ? engineNoteId : undefined}
        >
          {(['allowlist', 'none', 'open'] as const).map((m) => (
            <option key={m} value={m}>{EGRESS_LABELS[m]}</option>
          ))}
        </select>
      </label>
      {engineNote && (
        <p id={engineNoteId} className="field-error" role="alert">
          {engineNote}
        </p>
      )}
      <p className={values.egress === 'open' ? 'warning' : 'hint'} role="note">{EGRESS_EXPLAINED[values.egress]}</p>
      {values.egress === 'allowlist' && (
        <label className="field">
          <span>Allowed hosts (one a line: host, *.domain, either with :port; 80 and 443 without)</span>
          <textarea
            ref={allowRef}
            rows={6}
            spellCheck={false}
            value={values.egressAllow}
            onChange={(e) => set('egressAllow', e.target.value)}
            aria-invalid={problems.length > 0 ? true : undefined}
            aria-describedby={problems.length > 0 ? errorsId : undefined}
          />
        </label>
      )}
      {values.egress === 'allowlist' && (
        <div className="egress-presets" role="group" aria-label="Add a preset to the allowed hosts">
          <span>Add a preset:</span>{' '}
          {EGRESS_PRESETS.map((p) => {
            const list = allowFromText(values.egressAllow);
            return (
              <button key={p.id} type="button" disabled={hasPreset(list, p)} title={p.hosts.join(', ')}
                onClick={() => set('egressAllow', withPreset(list, p).join('\n'))}>
                {p.label}
              </button>
            );
          })}
        </div>
      )}
      {problems.length > 0 && (
        <ul id={errorsId} className="field-error allow-problems" aria-label="Allowlist entries Berth cannot use">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

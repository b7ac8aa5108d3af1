/** The profile form's network part: the egress mode, what it allows in plain words, and the allowlist. */
import { useId, type Ref } from 'react';
import type { EgressMode } from '../../../shared/contract';
import type { ProfileFormValues } from '../profiles/profileForm';
import { allowProblems, EGRESS_EXPLAINED, EGRESS_LABELS } from './egressText';

export function EgressFields({
  values,
  set,
  showErrors,
  allowRef,
}: {
  values: Pick<ProfileFormValues, 'egress' | 'egressAllow'>;
  set: <K extends 'egress' | 'egressAllow'>(key: K, value: ProfileFormValues[K]) => void;
  /** After a save was tried: the entries main would refuse are named here, by line (and only here). */
  showErrors: boolean;
  /** The allowlist's text area: the form puts the focus there when a save finds entries to fix. */
  allowRef?: Ref<HTMLTextAreaElement>;
}) {
  const errorsId = useId();
  const problems = showErrors && values.egress === 'allowlist' ? allowProblems(values.egressAllow) : [];
  return (
    <div className="egress-fields" style={{ gridColumn: '1 / -1' }}>
      <label className="field">
        <span>Network</span>
        <select value={values.egress} onChange={(e) => set('egress', e.target.value as EgressMode)}>
          {(['allowlist', 'none', 'open'] as const).map((m) => (
            <option key={m} value={m}>{EGRESS_LABELS[m]}</option>
          ))}
        </select>
      </label>
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

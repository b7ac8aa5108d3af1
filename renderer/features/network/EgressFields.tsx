/** The profile form's network part: the egress mode, what it allows in plain words, and the allowlist. */
import type { EgressMode } from '../../../shared/contract';
import type { ProfileFormValues } from '../profiles/profileForm';
import { EGRESS_EXPLAINED, EGRESS_LABELS } from './egressText';

export function EgressFields({
  values,
  set,
}: {
  values: Pick<ProfileFormValues, 'egress' | 'egressAllow'>;
  set: <K extends 'egress' | 'egressAllow'>(key: K, value: ProfileFormValues[K]) => void;
}) {
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
          <textarea rows={6} spellCheck={false} value={values.egressAllow} onChange={(e) => set('egressAllow', e.target.value)} />
        </label>
      )}
    </div>
  );
}

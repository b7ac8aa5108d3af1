/**
 * The chat's refusals grouped by host and port, each with Allow, which asks how far (once: this
 * host:port for 10 minutes; for this chat; for the profile) and which port before anything is
 * allowed; and the chat's own allowances, each revocable.
 */
import { useId, useState } from 'react';
import type { AllowScope, ChatGrant } from '../../../shared/egress';
import { grantText, portChoices, type RefusedGroup } from './egressText';

const SCOPES: { scope: AllowScope; label: string }[] = [
  { scope: 'once', label: 'Once: this chat, for 10 minutes' },
  { scope: 'chat', label: 'For this chat' },
  { scope: 'profile', label: "For the profile (every chat of it)" },
];

function AllowForm({ group, onAllow, onCancel }: {
  group: RefusedGroup;
  onAllow: (scope: AllowScope, port: number | null) => void;
  onCancel: () => void;
}) {
  const name = useId();
  const [scope, setScope] = useState<AllowScope>('once');
  const ports = portChoices(group.port);
  const [port, setPort] = useState<number | null>(ports[0]?.port ?? null);
  return (
    <form className="allow-form" aria-label={`Allow ${group.host}`} onSubmit={(e) => { e.preventDefault(); onAllow(scope, port); }}>
      <fieldset>
        <legend>How far</legend>
        {SCOPES.map((s) => (
          <label key={s.scope}>
            <input type="radio" name={`${name}-scope`} checked={scope === s.scope} onChange={() => setScope(s.scope)} /> {s.label}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Port</legend>
        {ports.map((p) => (
          <label key={p.label}>
            <input type="radio" name={`${name}-port`} checked={port === p.port} onChange={() => setPort(p.port)} /> {p.label}
          </label>
        ))}
      </fieldset>
      <button type="submit">Allow</button> <button type="button" onClick={onCancel}>Cancel</button>
    </form>
  );
}

export function RefusedGroups({ groups, onAllow }: { groups: RefusedGroup[]; onAllow: (group: RefusedGroup, scope: AllowScope, port: number | null) => Promise<void> }) {
  const [asking, setAsking] = useState<string | null>(null);
  if (groups.length === 0) return null;
  return (
    <ul className="refused-groups" aria-label="Refused hosts">
      {groups.map((g) => {
        const target = g.port === null ? g.host : `${g.host}:${g.port}`;
        return (
          <li key={target}>
            <strong>{target}</strong> {g.result} ({g.count === 1 ? '1 request' : `${g.count} requests`}){' '}
            {g.allowable && asking !== target && <button type="button" onClick={() => setAsking(target)} aria-label={`Allow… ${target}`}>Allow…</button>}
            {asking === target && (
              <AllowForm group={g} onCancel={() => setAsking(null)} onAllow={(scope, port) => void onAllow(g, scope, port).then(() => setAsking(null))} />
            )}
          </li>
        );
      })}
    </ul>
  );
}

export function ChatGrantList({ grants, onRevoke }: { grants: ChatGrant[]; onRevoke: (entry: string) => void }) {
  if (grants.length === 0) return null;
  return (
    <ul className="chat-grants" aria-label="Allowed for this chat">
      {grants.map((g) => (
        <li key={g.entry}>
          <span>{grantText(g)}</span> <button type="button" onClick={() => onRevoke(g.entry)} aria-label={`Revoke ${g.entry}`}>Revoke</button>
        </li>
      ))}
    </ul>
  );
}

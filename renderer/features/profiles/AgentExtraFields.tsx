/**
 * The profile form's agent context window and its MCP servers (a small list: name, then a command
 * run in the sandbox or an HTTP URL reached through the sandbox's network, its approval and
 * timeout). Errors show beside their field once a save was tried, then follow the typing.
 */
import { useId } from 'react';
import type { EgressMode } from '../../../shared/contract';
import type { ProfileFormValues } from './profileForm';
import { agentExtrasFromForm, NEW_MCP_SERVER, type McpRowField, type McpServerRow } from './agentFields';

type Set = <K extends 'contextWindow' | 'mcpServers'>(key: K, value: ProfileFormValues[K]) => void;

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <span id={id} className="field-error">
      {text}
    </span>
  ) : null;
}

/** How the profile's network treats an HTTP server, said beside its URL. */
function urlNote(egress: EgressMode, url: string): string {
  let host = 'its host';
  try {
    host = new URL(url.trim()).hostname || host;
  } catch {
    // Not a URL yet: the general words.
  }
  if (egress === 'none') return `This profile's network is "none": Berth will not reach this server. Choose "allowlist" with ${host} on the list, or "open".`;
  if (egress === 'allowlist') return `Reached through the egress proxy: ${host} must be on the allowed hosts (or allowed for the chat).`;
  return 'Reached from inside the sandbox: 127.0.0.1 there is the sandbox itself.';
}

function ServerRow({ row, index, errors, egress, onChange, onRemove }: {
  row: McpServerRow;
  index: number;
  egress: EgressMode;
  errors: Partial<Record<McpRowField, string>>;
  onChange(row: McpServerRow): void;
  onRemove(): void;
}) {
  const base = useId();
  const n = index + 1;
  const target: 'command' | 'url' = row.kind;
  const describe = (f: McpRowField) => (errors[f] ? { 'aria-invalid': true, 'aria-describedby': `${base}-${f}` } : {});
  return (
    <li className="mcp-server" aria-label={`MCP server ${n}`}>
      <label className="field">
        <span>Name</span>
        <input value={row.name} spellCheck={false} maxLength={24} placeholder="tools" onChange={(e) => onChange({ ...row, name: e.target.value })} {...describe('name')} />
      </label>
      <FieldError id={`${base}-name`} text={errors.name} />
      <label className="field">
        <span>Runs as</span>
        <select value={row.kind} onChange={(e) => onChange({ ...row, kind: e.target.value as McpServerRow['kind'] })}>
          <option value="command">A command in the sandbox (stdio)</option>
          <option value="url">An HTTP URL, through the sandbox&apos;s network</option>
        </select>
      </label>
      {target === 'command' ? (
        <label className="field">
          <span>Command and arguments</span>
          <input value={row.command} spellCheck={false} placeholder="python3 /workspace/tools/server.py" onChange={(e) => onChange({ ...row, command: e.target.value })} {...describe('command')} />
        </label>
      ) : (
        <label className="field">
          <span>URL</span>
          <input value={row.url} spellCheck={false} inputMode="url" placeholder="https://mcp.example.com/mcp" onChange={(e) => onChange({ ...row, url: e.target.value })} {...describe('url')} />
        </label>
      )}
      <FieldError id={`${base}-${target}`} text={errors[target]} />
      {target === 'url' && <span className={egress === 'none' ? 'field-error' : 'field-hint'}>{urlNote(egress, row.url)}</span>}
      <label className="field">
        <span>Its tool calls</span>
        <select value={row.approval} onChange={(e) => onChange({ ...row, approval: e.target.value as McpServerRow['approval'] })}>
          <option value="">As the profile&apos;s approval</option>
          <option value="ask">Ask each time</option>
          <option value="auto">Run automatically</option>
        </select>
      </label>
      <label className="field">
        <span>Timeout (seconds)</span>
        <input type="text" inputMode="numeric" value={row.timeoutSeconds} placeholder="60" onChange={(e) => onChange({ ...row, timeoutSeconds: e.target.value })} {...describe('timeoutSeconds')} />
      </label>
      <FieldError id={`${base}-timeoutSeconds`} text={errors.timeoutSeconds} />
      <button type="button" onClick={onRemove}>
        Remove MCP server {n}
      </button>
    </li>
  );
}

export function AgentExtraFields({ values, set, showErrors }: {
  values: Pick<ProfileFormValues, 'contextWindow' | 'mcpServers' | 'egress'>;
  set: Set;
  /** After a save was tried: each error beside its field. */
  showErrors: boolean;
}) {
  const ids = useId();
  const result = showErrors ? agentExtrasFromForm(values.contextWindow, values.mcpServers) : null;
  const errors = result && !result.ok ? result.errors : null;
  const rows = values.mcpServers;
  const replace = (i: number, row: McpServerRow | null) =>
    set('mcpServers', row === null ? rows.filter((_, j) => j !== i) : rows.map((r, j) => (j === i ? row : r)));
  return (
    <div className="agent-extra-fields" style={{ gridColumn: '1 / -1' }}>
      <label className="field">
        <span>Context window (tokens)</span>
        <input
          type="text"
          inputMode="numeric"
          value={values.contextWindow}
          placeholder="the provider's figure, else 32768"
          onChange={(e) => set('contextWindow', e.target.value)}
          aria-invalid={errors?.contextWindow ? true : undefined}
          aria-describedby={errors?.contextWindow ? `${ids}-cw` : undefined}
        />
      </label>
      <FieldError id={`${ids}-cw`} text={errors?.contextWindow} />
      <fieldset className="mcp-servers">
        <legend>MCP servers</legend>
        <p className="muted field-note">
          Extra tools for the agent. A command runs inside the chat&apos;s sandbox as its user; a URL is reached from inside the sandbox, through this profile&apos;s network rules (never under &quot;none&quot;).
        </p>
        {rows.length > 0 && (
          <ul aria-label="MCP servers">
            {rows.map((row, i) => (
              <ServerRow key={i} row={row} index={i} egress={values.egress} errors={errors?.mcp[i] ?? {}} onChange={(r) => replace(i, r)} onRemove={() => replace(i, null)} />
            ))}
          </ul>
        )}
        <FieldError id={`${ids}-list`} text={errors?.mcpList} />
        <button type="button" onClick={() => set('mcpServers', [...rows, NEW_MCP_SERVER])}>
          Add MCP server
        </button>
      </fieldset>
    </div>
  );
}

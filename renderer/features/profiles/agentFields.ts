/**
 * The profile form's agent context window and MCP servers, as typed, and their conversion to the
 * contract's settings, checked by the same schema main checks them with (AgentSettings), each
 * error placed on the field it is about.
 */
import { AgentSettings, type McpServerSetting } from '../../../shared/contract';

/** One MCP server as typed: a command run in the sandbox, or an HTTP URL. */
export interface McpServerRow {
  name: string;
  kind: 'command' | 'url';
  /** The program and its arguments on one line (quotes keep spaces in one word; no shell runs it). */
  command: string;
  url: string;
  /** '' follows the profile's approval. */
  approval: '' | 'ask' | 'auto';
  /** '' is the default (60 s). */
  timeoutSeconds: string;
}

export const NEW_MCP_SERVER: McpServerRow = { name: '', kind: 'command', command: '', url: '', approval: '', timeoutSeconds: '' };

export type McpRowField = 'name' | 'command' | 'url' | 'timeoutSeconds';
export interface AgentFieldErrors {
  contextWindow?: string;
  /** About the list as a whole (two servers with one name, too many). */
  mcpList?: string;
  /** Per row, per field. */
  mcp: Partial<Record<McpRowField, string>>[];
}
export type AgentExtrasResult =
  | { ok: true; contextWindow: number | null; mcpServers: McpServerSetting[] }
  | { ok: false; errors: AgentFieldErrors };

/** Splits a command line into words as a shell would for plain words and quotes, without running one. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: '"' | "'" | null = null;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      if (ch === '\\' && i + 1 < line.length) word += line[++i];
      else word += ch;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}

/** The words back on one line, quoting those splitCommand would otherwise split or change. */
export function joinCommand(words: readonly string[]): string {
  return words.map((w) => (w !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'"'"'`)}'`)).join(' ');
}

export function rowsFromSettings(servers: readonly McpServerSetting[] | undefined): McpServerRow[] {
  return (servers ?? []).map((s) => ({
    name: s.name,
    kind: s.url !== undefined ? 'url' : 'command',
    command: s.command ? joinCommand(s.command) : '',
    url: s.url ?? '',
    approval: s.approval ?? '',
    timeoutSeconds: s.timeoutSeconds === undefined ? '' : String(s.timeoutSeconds),
  }));
}

function settingFromRow(r: McpServerRow): Record<string, unknown> {
  const timeout = r.timeoutSeconds.trim();
  return {
    name: r.name.trim(),
    ...(r.kind === 'command' ? { command: splitCommand(r.command) } : { url: r.url.trim() }),
    ...(r.approval ? { approval: r.approval } : {}),
    // A number the schema judges; text that is no number is said here, in the same words.
    ...(timeout === '' ? {} : { timeoutSeconds: Number(timeout) }),
  };
}

/** The form's context window and MCP rows → the settings, or each error on its field. */
export function agentExtrasFromForm(contextWindowText: string, rows: readonly McpServerRow[]): AgentExtrasResult {
  const errors: AgentFieldErrors = { mcp: rows.map(() => ({})) };
  let failed = false;
  const typed = contextWindowText.trim().replace(/[,_\s]/g, '');
  let contextWindow: number | null = null;
  if (typed !== '') {
    const parsed = AgentSettings.shape.contextWindow.safeParse(/^\d+$/.test(typed) ? Number(typed) : NaN);
    if (parsed.success) contextWindow = parsed.data ?? null;
    else {
      errors.contextWindow = /^\d+$/.test(typed) ? (parsed.error.issues[0]?.message as string) : 'The context window is a whole number of tokens, or empty for the provider’s figure.';
      failed = true;
    }
  }
  const raw = rows.map(settingFromRow);
  const parsed = AgentSettings.shape.mcpServers.safeParse(raw);
  if (!parsed.success) {
    failed = true;
    for (const issue of parsed.error.issues) {
      const [index, key] = issue.path;
      if (typeof index !== 'number') {
        errors.mcpList ??= issue.message;
        continue;
      }
      const row = rows[index] as McpServerRow;
      const field: McpRowField =
        key === 'name' ? 'name' : key === 'timeoutSeconds' ? 'timeoutSeconds' : row.kind === 'url' ? 'url' : 'command';
      const place = errors.mcp[index] as Partial<Record<McpRowField, string>>;
      if (place[field]) continue;
      place[field] = field === 'timeoutSeconds' && !Number.isFinite(raw[index]?.timeoutSeconds as number) ? 'An MCP server’s timeout is a whole number of seconds, or empty for 60.' : issue.message;
    }
  }
  if (failed) return { ok: false, errors };
  return { ok: true, contextWindow, mcpServers: parsed.data ?? [] };
}

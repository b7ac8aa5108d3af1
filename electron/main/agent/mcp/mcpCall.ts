/**
 * One tool call the model made to an MCP server's tool: checked, approved by the same rules as
 * Berth's own commands (the server's approval setting, else the profile's; "Allow for this chat"
 * counts), run, and shown on its card. Any failure is the call's result, for the model to read.
 */
import type { AgentToolCall, McpServerSetting } from '../../../../shared/contract.js';
import type { McpServers } from './mcpServers.js';

export interface McpCallContext {
  servers: McpServers;
  chatId: string;
  settings: readonly McpServerSetting[];
  profileApproval: 'ask' | 'auto';
  allowedForChat: boolean;
  signal: AbortSignal;
  ask(command: string, detail: string | null): Promise<'allowed' | 'denied' | 'cancelled'>;
  update(fields: Partial<AgentToolCall>): void;
  now(): number;
}

/** The call's result for the model, or null when the name is no MCP server's tool. */
export async function runMcpCall(ctx: McpCallContext, call: AgentToolCall): Promise<string | null> {
  const target = ctx.servers.resolve(ctx.chatId, call.name, ctx.settings);
  if (target === null) return null;
  let args: unknown;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch {
    args = null;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    ctx.update({ status: 'failed', output: 'The arguments were not a JSON object.' });
    return 'Error: the arguments were not valid JSON. Send a JSON object.';
  }
  const command = `${target.server.name}: ${target.tool} ${JSON.stringify(args)}`.slice(0, 2000);
  ctx.update({ command });
  if ((target.server.approval ?? ctx.profileApproval) === 'ask' && !ctx.allowedForChat) {
    ctx.update({ status: 'awaiting_approval' });
    const outcome = await ctx.ask(command, JSON.stringify(args, null, 2));
    if (outcome !== 'allowed') {
      ctx.update({ status: outcome === 'denied' ? 'denied' : 'cancelled', output: outcome === 'denied' ? 'The user denied this.' : 'Stopped.' });
      return outcome === 'denied' ? 'The user denied this tool call; nothing ran. Do not retry it unchanged.' : 'Stopped before it ran.';
    }
    ctx.update({ status: 'running' });
  }
  const started = ctx.now();
  const r = await ctx.servers.call(ctx.chatId, target.server, target.tool, args as Record<string, unknown>, ctx.signal);
  ctx.update({ status: ctx.signal.aborted ? 'cancelled' : r.ok ? 'done' : 'failed', output: r.text, durationMs: ctx.now() - started });
  return r.ok ? r.text : `Error: ${r.text}`;
}

/**
 * The MCP servers of each chat, running inside its sandbox: started on first use (a docker exec
 * as the sandbox user whose stdin/stdout carry the protocol, ExecTransport), their tools listed
 * once, calls bounded by the server's timeout. A server that crashes, hangs or cannot start
 * becomes an error in the tool's result, never a stuck turn; a hung one is stopped, so the next
 * call starts it again. Every server of a sandbox ends when the sandbox stops.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { EgressMode, McpServerSetting } from '../../../../shared/contract.js';
import { mcpHttpRoute } from '../../policy/mcpHttpRoute.js';
import type { AttachedStreams } from '../../engine/dockerEngine.js';
import type { ToolSpec } from '../provider/openaiClient.js';
import { ExecTransport } from './execTransport.js';
import { sandboxFetch, type SandboxConnect } from './sandboxFetch.js';

export interface McpContainer {
  key: string;
  id: string;
  user: string;
  engine: { execPipe(id: string, cmd: string[], user: string): Promise<AttachedStreams> };
}

export interface McpServersDeps {
  /** The chat's running container (started if it is not). */
  container(chatId: string): Promise<McpContainer>;
  /** The sandboxes' containers, whose going ends their servers (SandboxContainers, subscribed to, never called up). */
  containers: { onGone(listener: (key: string) => void): () => void };
  /** The chat's profile's network: an HTTP server is reached by its rules. */
  egress(chatId: string): EgressMode;
  /** A TCP connection opened inside the chat's container, as its user (absent: no HTTP servers). */
  connect?(container: McpContainer, host: string, port: number): ReturnType<SandboxConnect>;
}

interface Live {
  key: string;
  client: Client;
  /** What a stdio server last wrote to stderr ('' for HTTP). */
  stderr(): string;
  tools: { name: string; description: string; parameters: object }[];
}

export const MCP_PREFIX = 'mcp__';
export const DEFAULT_MCP_TIMEOUT_S = 60;
/** Starting a server and listing its tools. */
const START_TIMEOUT_MS = 30_000;
const MAX_RESULT_CHARS = 60_000;

/** The tool name the model sees: OpenAI's function names are [A-Za-z0-9_-], at most 64. */
export function mcpToolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

export class McpServers {
  private readonly live = new Map<string, Promise<Live>>();
  private readonly stopGone: () => void;

  constructor(private readonly deps: McpServersDeps) {
    this.stopGone = deps.containers.onGone((key) => {
      for (const [id, p] of this.live) {
        void p.then((l) => {
          if (l.key === key) void this.stop(id);
        }, () => undefined);
      }
    });
  }

  /** The tools of every server of the profile, and a line for each server that could not start. */
  async specs(chatId: string, servers: readonly McpServerSetting[]): Promise<{ specs: ToolSpec[]; problems: string[] }> {
    const specs: ToolSpec[] = [];
    const problems: string[] = [];
    await Promise.all(servers.map(async (s) => {
      try {
        const l = await this.server(chatId, s);
        for (const t of l.tools) specs.push({ type: 'function', function: { name: mcpToolName(s.name, t.name), description: `[MCP server ${s.name}] ${t.description}`, parameters: t.parameters } });
      } catch (error) {
        problems.push(`The MCP server ${s.name} could not start: ${messageOf(error)}`);
      }
    }));
    return { specs, problems };
  }

  /** Which server and tool a model's tool name means, or null. */
  resolve(chatId: string, name: string, servers: readonly McpServerSetting[]): { server: McpServerSetting; tool: string } | null {
    if (!name.startsWith(MCP_PREFIX)) return null;
    for (const server of servers) {
      const prefix = `${MCP_PREFIX}${server.name}__`;
      if (!name.startsWith(prefix)) continue;
      // A server that stopped since it listed its tools is asked by the name as sent: it starts again for the call.
      const tool = this.known.get(id(chatId, server.name))?.find((t) => mcpToolName(server.name, t) === name) ?? name.slice(prefix.length);
      return { server, tool };
    }
    return null;
  }

  /** Tool names per live server, kept for resolve (a server's list is fixed while it runs). */
  private readonly known = new Map<string, string[]>();

  async call(chatId: string, server: McpServerSetting, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ ok: boolean; text: string }> {
    const timeoutS = server.timeoutSeconds ?? DEFAULT_MCP_TIMEOUT_S;
    let l: Live;
    try {
      l = await this.server(chatId, server);
    } catch (error) {
      return { ok: false, text: `The MCP server ${server.name} could not start: ${messageOf(error)}` };
    }
    try {
      const r = await l.client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutS * 1000, signal });
      const content = Array.isArray(r.content) ? (r.content as { type: string; text?: string }[]) : [];
      const text = content.map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type} content]`)).join('\n');
      const capped = text.length <= MAX_RESULT_CHARS ? text : `${text.slice(0, MAX_RESULT_CHARS)}\n[… cut: ${text.length} characters in all]`;
      return { ok: r.isError !== true, text: capped };
    } catch (error) {
      const timedOut = /timed out|timeout/i.test(messageOf(error));
      const stderr = l.stderr().trim();
      // A server that did not answer in time is stopped: its next call starts it afresh.
      await this.stop(id(chatId, server.name));
      if (signal?.aborted) return { ok: false, text: 'Stopped.' };
      return {
        ok: false,
        text: timedOut
          ? `The MCP server ${server.name} did not answer ${tool} within ${timeoutS} s; Berth stopped it (it starts again at the next call).`
          : `The MCP server ${server.name} failed during ${tool}: ${messageOf(error)}${stderr ? `\nIts last words on stderr: ${stderr.slice(-1000)}` : ''}`,
      };
    }
  }

  async stopChat(chatId: string): Promise<void> {
    await Promise.all([...this.live.keys()].filter((k) => k.startsWith(`${chatId}\n`)).map((k) => this.stop(k)));
  }

  async dispose(): Promise<void> {
    this.stopGone();
    await Promise.all([...this.live.keys()].map((k) => this.stop(k)));
  }

  private server(chatId: string, s: McpServerSetting): Promise<Live> {
    const key = id(chatId, s.name);
    let p = this.live.get(key);
    if (!p) {
      p = this.start(chatId, s, key);
      this.live.set(key, p);
      p.catch(() => this.live.get(key) === p && this.live.delete(key));
    }
    return p;
  }

  private async start(chatId: string, s: McpServerSetting, key: string): Promise<Live> {
    const { transport, stderr, release, containerKey } = await this.transport(chatId, s);
    const client = new Client({ name: 'berth', version: '1' });
    try {
      await client.connect(transport, { timeout: START_TIMEOUT_MS });
      const listed = await client.listTools(undefined, { timeout: START_TIMEOUT_MS });
      const tools = listed.tools.map((t) => ({ name: t.name, description: t.description ?? '', parameters: t.inputSchema as object }));
      const live: Live = { key: containerKey, client, stderr, tools };
      this.known.set(key, tools.map((t) => t.name));
      // A server that exits is forgotten: the next use starts it again. (The client's own
      // handler, not the transport's, which the SDK uses to fail the calls still waiting.)
      client.onclose = () => {
        release();
        void this.live.get(key)?.then((l) => {
          if (l !== live) return;
          this.live.delete(key);
          this.known.delete(key);
        }, () => undefined);
      };
      return live;
    } catch (error) {
      await transport.close().catch(() => undefined);
      release();
      const said = stderr().trim();
      throw new Error(`${messageOf(error)}${said ? ` (stderr: ${said.slice(-500)})` : ''}`, { cause: error });
    }
  }

  /** stdio: a docker exec of the command in the sandbox; HTTP: the SDK's client over connections opened in the sandbox. */
  private async transport(chatId: string, s: McpServerSetting): Promise<{ transport: Transport; stderr: () => string; release: () => void; containerKey: string }> {
    if (s.url !== undefined) {
      const url = new URL(s.url);
      const egress = this.deps.egress(chatId);
      // Refused before any sandbox starts: 'none' lets nothing out.
      const route = mcpHttpRoute(egress, url);
      if (!route.ok) throw new Error(route.message);
      const connect = this.deps.connect;
      if (!connect) throw new Error('this Berth cannot open connections inside a sandbox.');
      const c = await this.deps.container(chatId);
      const f = sandboxFetch(egress, (host, port) => connect(c, host, port));
      return { transport: new StreamableHTTPClientTransport(url, { fetch: f.fetch }), stderr: () => '', release: f.close, containerKey: c.key };
    }
    const c = await this.deps.container(chatId);
    const exec = new ExecTransport(await c.engine.execPipe(c.id, s.command ?? [], c.user));
    return { transport: exec, stderr: () => exec.stderr, release: () => undefined, containerKey: c.key };
  }

  private async stop(key: string): Promise<void> {
    const p = this.live.get(key);
    this.live.delete(key);
    this.known.delete(key);
    const l = await p?.catch(() => null);
    await l?.client.close().catch(() => undefined);
  }
}

function id(chatId: string, server: string): string {
  return `${chatId}\n${server}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The chat's container for its MCP servers: started first (a no-op command) if it is not running. */
export async function mcpContainer(
  chatId: string,
  sandbox: { exec(req: { chatId: string; command: string }, options: { sandboxOnly: true }): Promise<unknown> },
  running: (chatId: string) => Promise<McpContainer | null>,
): Promise<McpContainer> {
  const now = await running(chatId);
  if (now) return now;
  await sandbox.exec({ chatId, command: 'true' }, { sandboxOnly: true });
  const started = await running(chatId);
  if (!started) throw new Error("the chat's sandbox is not running.");
  return started;
}

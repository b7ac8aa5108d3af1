/**
 * A chat's agent: the turn loop (model → tool calls → model …), approvals, cancellation,
 * subagents, and the conversation's persistence. Each chat runs at most one turn at a time.
 * Tools act only in the chat's sandbox (SandboxTools); the provider is any OpenAI-compatible
 * endpoint, reached with the profile's own key.
 */
import { randomUUID } from 'node:crypto';
import { AGENT_TOOL_NAMES, type AgentChatOptions, type AgentMessage, type AgentToolCall, type AgentToolName, type ApprovalRequest } from '../../../shared/contract.js';
import { BerthError, toErrorPayload } from '../../../shared/errors.js';
import type { EventHub } from '../events.js';
import type { Clock } from '../base/clock.js';
import type { SessionService } from '../sessions/sessionService.js';
import type { Store } from '../store/repositories.js';
import { ApprovalGate, type ApprovalDecision } from './approvals.js';
import type { Completion, CompletionRequest } from './provider/openaiClient.js';
import { ProviderCancelled } from './provider/openaiClient.js';
import { listModels, type ProviderModel } from './provider/models.js';
import { resolveAgentPath } from '../policy/agentPaths.js';
import { TurnContext } from './turnContext.js';
import { closeInterruptedTurns, markOpen } from './openTurns.js';
import { runMcpCall } from './mcp/mcpCall.js';
import type { McpServers } from './mcp/mcpServers.js';
import { describeCall, isEdit, plannedCall, preview, previewText } from './callText.js';
import type { ProviderKeys } from './providerKeys.js';
import { commitEdit, prepareEdit, type PreparedEdit } from './sandboxEdit.js';
import { findFiles, search } from './sandboxSearch.js';
import { SandboxTools, type AgentSandbox, type Caller, type PreparedWrite, type ToolOutcome } from './sandboxTools.js';
import { toolArgs, toolSpecs, type ToolArgs } from './toolSpecs.js';

export const MAX_STEPS = 40;
/** Subagents may start subagents, this deep. */
export const MAX_DEPTH = 3;
/** Tool failures that a retry by the model cannot fix: the turn ends and the user is told. */
const FATAL_CODES = new Set(['engine_unreachable', 'image_unavailable', 'registry_unreachable', 'network_failed', 'container_failed', 'home_template_failed', 'workspace_refused', 'not_found']);

const INTERRUPT_RETRY_MS = 200;

export type Complete = (req: CompletionRequest) => Promise<Completion>;

interface Turn {
  controller: AbortController;
  /** Messages being written now (streaming, tool calls running): newer than the store. */
  live: Map<string, AgentMessage>;
  /** Callers with a command running, to interrupt on stop. */
  executing: Set<Caller>;
  finished: Promise<TurnResult>;
}

export interface TurnResult {
  /** The chat agent's last answer in this turn. */
  finalText: string;
  error: BerthError | null;
}

interface TaskRun {
  chatId: string;
  profile: string;
  baseUrl: string;
  model: string;
  apiKey: string | null;
  profileWindow: number | null | undefined;
  caller: Caller;
  parentCallId: string | null;
  depth: number;
  turn: Turn;
}

export interface AgentServiceDeps {
  store: Store;
  sessions: SessionService;
  sandbox: AgentSandbox;
  keys: ProviderKeys;
  events: EventHub;
  clock: Clock;
  complete: Complete;
  /** Runs before each turn starts (Review mode's restore point); a failure ends the turn with its error. */
  beforeTurn?: (chatId: string, userMessageId: string) => Promise<void>;
  /** The provider's model list (GET /v1/models); the real one unless a test gives another. */
  listModels?: (req: { baseUrl: string; apiKey: string | null }) => Promise<ProviderModel[]>;
  /** The chats' MCP servers, in their sandboxes (absent: the profile's servers are not offered). */
  mcp?: McpServers;
  /** Runs as each turn ends, before the chat hears it ended (Review mode's end of the turn's changes); a failure is not the turn's. */
  afterTurn?: (chatId: string, userMessageId: string) => Promise<void>;
}

export class AgentService {
  private readonly turns = new Map<string, Turn>();
  private readonly approvals: ApprovalGate;
  private readonly tools: SandboxTools;
  private readonly context: TurnContext;

  constructor(private readonly deps: AgentServiceDeps) {
    this.approvals = new ApprovalGate(deps.events);
    this.tools = new SandboxTools(deps.sandbox);
    this.context = new TurnContext({
      store: deps.store, tools: this.tools, clock: deps.clock, complete: deps.complete, listModels: deps.listModels ?? listModels, save: (m) => this.save(m),
    });
    closeInterruptedTurns(deps.store, deps.clock);
  }


  /** Every approval waiting for the user, in any chat. */
  waiting(): ApprovalRequest[] {
    return this.approvals.pendingAll();
  }

  async history(chatId: string): Promise<{ messages: AgentMessage[]; running: boolean; approvals: ApprovalRequest[]; allowedForChat: boolean; options: AgentChatOptions; contextWindow: number | null }> {
    const chat = this.deps.sessions.requireChat(chatId);
    const turn = this.turns.get(chatId);
    const messages = this.deps.store.agentMessages.forChat(chatId).map((s) => turn?.live.get(s.message.id) ?? s.message);
    const options = this.deps.store.agentChatOptions.get(chat.id);
    const { contextWindow: profileWindow } = this.deps.sessions.requireProfile(chat.profile).settings.agent;
    const { baseUrl, model, keyProfile } = this.deps.sessions.providerOf(chat.profile);
    const chosen = options.model ?? model;
    const contextWindow = baseUrl && chosen
      ? await this.context.contextWindow({ baseUrl, model: chosen, apiKey: this.deps.keys.keyFor(keyProfile, baseUrl), profileWindow })
      : null;
    return { messages, running: turn !== undefined, approvals: this.approvals.pendingFor(chatId), allowedForChat: this.approvals.isAllowed(chatId), options, contextWindow };
  }

  /** Changes the chat's own options (AGENTS.md on or off, its model); they apply from its next turn. */
  setOptions(chatId: string, change: Partial<AgentChatOptions>): AgentChatOptions {
    const chat = this.deps.sessions.requireChat(chatId);
    const now = this.deps.store.agentChatOptions.get(chat.id);
    const next: AgentChatOptions = { instructions: change.instructions ?? now.instructions, model: change.model === undefined ? now.model : change.model };
    this.deps.store.agentChatOptions.set(chat.id, next);
    return next;
  }

  /** The models the chat's provider lists, for the chat's model picker. */
  async models(chatId: string): Promise<{ models: string[]; current: string | null }> {
    const chat = this.deps.sessions.requireChat(chatId);
    const { baseUrl, model, keyProfile } = this.deps.sessions.providerOf(chat.profile);
    const current = this.deps.store.agentChatOptions.get(chat.id).model ?? model;
    if (!baseUrl) return { models: [], current };
    const list = await (this.deps.listModels ?? listModels)({ baseUrl, apiKey: this.deps.keys.keyFor(keyProfile, baseUrl) });
    return { models: list.map((m) => m.id), current };
  }

  /** Starts a turn with the user's message; `finished` settles when the turn ends. */
  send(chatId: string, text: string): { message: AgentMessage; finished: Promise<TurnResult> } {
    const chat = this.deps.sessions.requireChat(chatId);
    const profile = this.deps.sessions.requireProfile(chat.profile);
    if (this.turns.has(chatId)) {
      throw new BerthError('agent_busy', 'The agent is still working on the last message.', { hint: 'Wait for it to finish, or press Stop.' });
    }
    if (profile.settings.backend !== 'docker') {
      throw new BerthError('invalid_request', `The profile "${profile.name}" runs commands directly on this computer, so Berth gives it no agent: an agent's tools run only in a sandbox.`, {
        hint: 'Use a profile with the Docker backend.',
      });
    }
    const options = this.deps.store.agentChatOptions.get(chat.id);
    const { contextWindow: profileWindow } = profile.settings.agent;
    const provider = this.deps.sessions.providerOf(profile.name);
    const { baseUrl } = provider;
    const model = options.model ?? provider.model;
    if (!baseUrl || !model) {
      throw new BerthError('provider_not_configured', `The profile "${profile.name}" has no model yet.`, {
        hint: 'Set its provider URL and model (and API key, if the provider needs one) in the profile’s settings.',
      });
    }
    const apiKey = this.deps.keys.keyFor(provider.keyProfile, baseUrl);
    const message = this.save({ id: randomUUID(), chatId, taskId: null, parentCallId: null, role: 'user', content: text, toolCalls: [], done: true, createdAt: this.deps.clock.now() });

    const turn: Turn = { controller: new AbortController(), live: new Map(), executing: new Set(), finished: Promise.resolve({ finalText: '', error: null }) };
    markOpen(this.deps.store, chatId, true);
    this.turns.set(chatId, turn);
    this.deps.events.emit('agent.state', { chatId, running: true, error: null });
    const run: TaskRun = {
      chatId, profile: profile.name, baseUrl, model, apiKey, profileWindow, caller: { chatId, taskId: undefined, signal: turn.controller.signal }, parentCallId: null, depth: 0, turn,
    };
    const before = this.deps.beforeTurn ? this.deps.beforeTurn(chatId, message.id) : Promise.resolve();
    const after = () => (this.deps.afterTurn ? this.deps.afterTurn(chatId, message.id).catch(() => undefined) : Promise.resolve());
    turn.finished = before.then(() => this.context.beginTurn(run, this.deps.sandbox.folders(chatId), options.instructions)).then(() => this.runTask(run)).then(
      (finalText) => after().then(() => this.endTurn(chatId, turn, finalText, null)),
      (error: unknown) => after().then(() => this.endTurn(chatId, turn, '', error)),
    );
    return { message, finished: turn.finished };
  }

  async stop(chatId: string): Promise<{ stopped: boolean }> {
    const turn = this.turns.get(chatId);
    if (!turn) return { stopped: false };
    turn.controller.abort();
    // A command can be starting at the moment of the stop, before an interrupt can reach it:
    // keep interrupting what runs until the turn has ended.
    let ended = false;
    const end = () => (ended = true);
    void turn.finished.then(end, end);
    while (!ended) {
      await Promise.all([...turn.executing].map((c) => this.deps.sandbox.interrupt(c.chatId, c.taskId).catch(() => undefined)));
      await Promise.race([turn.finished.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, INTERRUPT_RETRY_MS).unref())]);
    }
    return { stopped: true };
  }

  revokeAllow(chatId: string): void {
    this.approvals.revoke(chatId);
  }

  approve(chatId: string, approvalId: string, decision: ApprovalDecision, reason?: string): void {
    this.approvals.answer(chatId, approvalId, decision, reason);
  }

  /** Stops every turn (quitting, or the chat is being deleted). */
  async stopAll(chatId?: string): Promise<void> {
    const ids = chatId === undefined ? [...this.turns.keys()] : [chatId];
    await Promise.all(ids.map((id) => this.stop(id)));
    if (chatId !== undefined) await this.deps.mcp?.stopChat(chatId);
    if (chatId !== undefined) this.approvals.forgetChat(chatId);
  }

  private endTurn(chatId: string, turn: Turn, finalText: string, error: unknown): TurnResult {
    this.turns.delete(chatId);
    this.context.endTurn(chatId);
    try {
      markOpen(this.deps.store, chatId, false);
    } catch {
      // The disk is full: the next start closes this turn instead, saying it was interrupted.
    }
    const cancelled = turn.controller.signal.aborted;
    let failure: BerthError | null = null;
    if (error !== null && !cancelled) {
      failure = error instanceof BerthError ? error : new BerthError('internal', 'The agent stopped because of an internal error.', { hint: 'Try again.', cause: error });
      const payload = toErrorPayload(failure);
      try {
        this.save({
          id: randomUUID(), chatId, taskId: null, parentCallId: null, role: 'error',
          content: payload.hint ? `${payload.message}\n${payload.hint}` : payload.message, toolCalls: [], done: true, createdAt: this.deps.clock.now(),
        });
      } catch {
        // The chat is gone (deleted mid-turn) or the disk is full: the state event still goes out.
      }
    }
    this.deps.events.emit('agent.state', { chatId, running: false, error: failure ? toErrorPayload(failure) : null });
    return { finalText, error: cancelled ? new BerthError('invalid_request', 'The turn was stopped.') : failure };
  }

  /** One agent (the chat's, or a subagent) until it answers without tool calls. */
  private async runTask(run: TaskRun): Promise<string> {
    const { turn } = run;
    const taskId = run.caller.taskId ?? null;
    for (let step = 0; step < MAX_STEPS; step++) {
      if (turn.controller.signal.aborted) return '';
      const tools = [...toolSpecs(run.depth < MAX_DEPTH), ...(await this.mcpSpecs(run))];
      let messages;
      try {
        messages = await this.context.messages(run, this.deps.sandbox.folders(run.chatId), taskId, tools);
      } catch (error) {
        if (error instanceof ProviderCancelled) return '';
        throw error;
      }
      const reply: AgentMessage = {
        id: randomUUID(), chatId: run.chatId, taskId, parentCallId: run.parentCallId, role: 'assistant', content: '', toolCalls: [], done: false, createdAt: this.deps.clock.now(),
      };
      // Shown from its first word: a request that fails before any leaves no empty message.
      let shown = false;
      const show = (save = true) => {
        if (shown) return;
        shown = true;
        turn.live.set(reply.id, reply);
        if (save) this.save(reply);
      };
      let completion: Completion;
      try {
        completion = await this.deps.complete({
          baseUrl: run.baseUrl, apiKey: run.apiKey, model: run.model, messages, tools, signal: turn.controller.signal,
          onText: (text) => {
            show();
            reply.content += text;
            this.deps.events.emit('agent.delta', { chatId: run.chatId, messageId: reply.id, text });
          },
        });
      } catch (error) {
        if (shown) this.finish(turn, reply);
        if (error instanceof ProviderCancelled) return '';
        throw error;
      }
      // Saved once, whole, just below: each save is a synchronous SQLite commit (an fsync), and
      // on a busy disk one took 1-35 ms of the time Berth adds to a tool call (traced on the call
      // npm run bench:agent times).
      show(false);
      reply.content = completion.content;
      if (completion.usage) reply.usage = completion.usage;
      reply.toolCalls = completion.toolCalls.map((c) => {
        const planned = plannedCall(c.name, c.arguments);
        return {
          id: c.id, name: c.name, arguments: c.arguments, status: 'running', command: planned?.command ?? null, cwd: planned?.cwd ?? null,
          exitCode: null, durationMs: null, output: null, subtaskId: null,
        };
      });
      this.save(reply);
      if (reply.toolCalls.length === 0) {
        this.finish(turn, reply);
        return reply.content;
      }
      const results: Record<string, string> = {};
      for (const call of reply.toolCalls) {
        if (turn.controller.signal.aborted) {
          call.status = 'cancelled';
          continue;
        }
        results[call.id] = await this.runTool(run, reply, call);
        this.save(reply, results);
      }
      this.finish(turn, reply, results);
    }
    throw new BerthError('provider_failed', `The agent stopped after ${MAX_STEPS} steps without finishing.`, { hint: 'Ask again with a narrower task.' });
  }

  private async runTool(run: TaskRun, reply: AgentMessage, call: AgentToolCall): Promise<string> {
    // Reset once the user allows it: Duration is how long it ran, not how long it waited.
    let started = this.deps.clock.now();
    const update = (fields: Partial<AgentToolCall>) => {
      Object.assign(call, fields);
      this.save(reply);
    };
    const mcp = await this.mcpCall(run, call, update);
    if (mcp !== null) return mcp;
    if (!(AGENT_TOOL_NAMES as readonly string[]).includes(call.name)) {
      update({ status: 'failed', output: `Berth has no tool named "${call.name}".` });
      return `Error: there is no tool named "${call.name}". Use one of: ${AGENT_TOOL_NAMES.join(', ')}.`;
    }
    const name = call.name as AgentToolName;
    let raw: unknown;
    try {
      raw = JSON.parse(call.arguments || '{}');
    } catch {
      update({ status: 'failed', output: 'The arguments were not valid JSON.' });
      return 'Error: the arguments were not valid JSON. Send a JSON object.';
    }
    const parsed = toolArgs[name].safeParse(raw);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
      update({ status: 'failed', output: `Invalid arguments: ${why}` });
      return `Error: invalid arguments (${why}).`;
    }
    const args = parsed.data as Record<string, unknown>;
    const command = describeCall(name, args);
    const cwd = typeof args.workdir === 'string' ? args.workdir : null;
    // Saved with the answer already (plannedCall) unless something changed the call since.
    if (call.command !== command || call.cwd !== cwd) update({ command, cwd });
    if (name === 'delegate_task' && run.depth >= MAX_DEPTH) {
      update({ status: 'failed', output: `Subagents nest at most ${MAX_DEPTH} deep.` });
      return `Error: subagents nest at most ${MAX_DEPTH} deep; do this task yourself.`;
    }

    // A write or edit is resolved first, so the user approves the real path and sees the content
    // (or, for an edit, its diff: decided before it is asked for, written only after).
    let prepared: PreparedWrite | PreparedEdit | null = null;
    if (name === 'write_file' || name === 'edit_file') {
      const p = await (name === 'write_file'
        ? this.tools.prepareWrite(run.caller, args as ToolArgs<'write_file'>)
        : prepareEdit(this.tools, run.caller, args as ToolArgs<'edit_file'>)
      ).catch((error: unknown) => this.toolFailed(run, call, update, error, started));
      if (typeof p === 'string') return p;
      if (!('path' in p)) {
        update({ status: 'failed', command: p.command, output: p.output, durationMs: this.deps.clock.now() - started });
        return p.resultForModel;
      }
      prepared = p;
      update({ command: p.command, ...(isEdit(p) ? { diff: p.diff } : {}) });
    }

    if ((name === 'terminal' || name === 'write_file' || name === 'edit_file') && this.asks(run) && !this.approvals.isAllowed(run.chatId)) {
      update({ status: 'awaiting_approval' });
      const { outcome, reason } = await this.approvals.ask(
        {
          chatId: run.chatId,
          // A subagent's command says so: the prompt names whose it is.
          taskId: run.caller.taskId ?? null,
          callId: call.id,
          tool: name,
          command: call.command ?? '',
          cwd: call.cwd,
          detail: prepared === null ? null : isEdit(prepared) ? previewText(prepared.diff, Buffer.byteLength(prepared.diff)) : preview(prepared.bytes),
        },
        run.turn.controller.signal,
      );
      if (outcome !== 'allowed') {
        if (outcome !== 'denied') {
          update({ status: 'cancelled', output: 'Stopped.' });
          return 'Stopped before it ran.';
        }
        const because = reason === null ? '' : ` The user's reason: ${reason}`;
        update({ status: 'denied', output: `The user denied this.${because}` });
        return `The user denied this tool call; nothing ran. Do not retry it unchanged.${because}`;
      }
      update({ status: 'running' });
      started = this.deps.clock.now();
    }

    if (name === 'delegate_task') return this.delegate(run, reply, call, args as { task: string; title?: string }, started);

    run.turn.executing.add(run.caller);
    let outcome: ToolOutcome;
    try {
      outcome = prepared === null
        ? await this.toolCall(name as Exclude<AgentToolName, 'delegate_task' | 'write_file' | 'edit_file'>, run.caller, args)
        : isEdit(prepared) ? await commitEdit(this.tools, run.caller, prepared) : await this.tools.commitWrite(run.caller, prepared);
    } catch (error) {
      return this.toolFailed(run, call, update, error, started);
    } finally {
      run.turn.executing.delete(run.caller);
    }
    const stopped = run.turn.controller.signal.aborted;
    // Saved (and shown) by runTask with the result, at once: one commit where there were two.
    Object.assign(call, {
      status: stopped ? 'cancelled' : outcome.ok ? 'done' : 'failed',
      command: outcome.command, cwd: outcome.cwd ?? call.cwd, exitCode: outcome.exitCode, output: outcome.output, durationMs: this.deps.clock.now() - started,
      ...(outcome.diff === undefined ? {} : { diff: outcome.diff }),
    });
    return outcome.resultForModel + (await this.nestedInstructions(run, name, args));
  }

  /** A file tool's first use under a nested AGENTS.md in this turn brings that file's text. */
  private async nestedInstructions(run: TaskRun, name: AgentToolName, args: Record<string, unknown>): Promise<string> {
    if (name === 'terminal' || name === 'delegate_task' || run.turn.controller.signal.aborted) return '';
    const where = resolveAgentPath(typeof args.path === 'string' ? args.path : '.', this.deps.sandbox.folders(run.chatId), 'read');
    return this.context.nestedFor(run, where.ok ? where.path : null);
  }

  private toolCall(name: Exclude<AgentToolName, 'delegate_task' | 'write_file' | 'edit_file'>, caller: Caller, args: Record<string, unknown>): Promise<ToolOutcome> {
    switch (name) {
      case 'terminal': return this.tools.terminal(caller, args as ToolArgs<'terminal'>);
      case 'read_file': return this.tools.readFile(caller, args as ToolArgs<'read_file'>);
      case 'list_dir': return this.tools.listDir(caller, args as ToolArgs<'list_dir'>);
      case 'search': return search(this.tools, caller, args as ToolArgs<'search'>);
      case 'find_files': return findFiles(this.tools, caller, args as ToolArgs<'find_files'>);
    }
  }

  private async mcpSpecs(run: TaskRun) {
    const servers = this.deps.sessions.requireProfile(run.profile).settings.agent.mcpServers ?? [];
    if (!this.deps.mcp || servers.length === 0 || run.turn.controller.signal.aborted) return [];
    return (await this.deps.mcp.specs(run.chatId, servers)).specs;
  }

  /** A call to an MCP server's tool (null: the name is none of theirs). */
  private mcpCall(run: TaskRun, call: AgentToolCall, update: (f: Partial<AgentToolCall>) => void): Promise<string | null> {
    const { agent } = this.deps.sessions.requireProfile(run.profile).settings;
    if (!this.deps.mcp || !agent.mcpServers?.length) return Promise.resolve(null);
    return runMcpCall({
      servers: this.deps.mcp, chatId: run.chatId, settings: agent.mcpServers, profileApproval: agent.approval, allowedForChat: this.approvals.isAllowed(run.chatId),
      signal: run.turn.controller.signal, update, now: () => this.deps.clock.now(),
      ask: (command, detail) => this.approvals.ask({ chatId: run.chatId, taskId: run.caller.taskId ?? null, callId: call.id, tool: call.name, command, cwd: null, detail }, run.turn.controller.signal).then((answer) => answer.outcome),
    }, call);
  }

  /** A tool that threw: the card says so; failures the model cannot fix end the turn. */
  private toolFailed(run: TaskRun, call: AgentToolCall, update: (f: Partial<AgentToolCall>) => void, error: unknown, started: number): string {
    const stopped = run.turn.controller.signal.aborted;
    const payload = toErrorPayload(error);
    update({ status: stopped ? 'cancelled' : 'failed', output: stopped ? 'Stopped.' : payload.message, durationMs: this.deps.clock.now() - started });
    if (!stopped && error instanceof BerthError && FATAL_CODES.has(error.code)) throw error;
    return stopped ? 'Stopped.' : `Error: ${payload.message}`;
  }

  /** Read at each call: switching a profile to "ask" takes effect in a running turn. */
  private asks(run: TaskRun): boolean {
    return this.deps.sessions.requireProfile(run.profile).settings.agent.approval === 'ask';
  }

  /** A subagent: an alias of its parent, so it works in the same container and folders. */
  private async delegate(run: TaskRun, reply: AgentMessage, call: AgentToolCall, args: { task: string; title?: string }, started: number): Promise<string> {
    const chat = this.deps.sessions.requireChat(run.chatId);
    const subId = `sub-${randomUUID()}`;
    this.deps.sessions.registerTask(chat, { chatId: chat.id, taskId: subId, parentId: run.caller.taskId ?? chat.id });
    Object.assign(call, { subtaskId: subId });
    this.save(reply);
    this.save({ id: randomUUID(), chatId: run.chatId, taskId: subId, parentCallId: call.id, role: 'user', content: args.task, toolCalls: [], done: true, createdAt: this.deps.clock.now() });
    try {
      const answer = await this.runTask({ ...run, caller: { chatId: run.chatId, taskId: subId, signal: run.turn.controller.signal }, parentCallId: call.id, depth: run.depth + 1 });
      const stopped = run.turn.controller.signal.aborted;
      Object.assign(call, { status: stopped ? 'cancelled' : 'done', output: answer, durationMs: this.deps.clock.now() - started });
      this.save(reply);
      return stopped ? 'Stopped.' : `The subagent answered:\n${answer}`;
    } catch (error) {
      Object.assign(call, { status: 'failed', output: toErrorPayload(error).message, durationMs: this.deps.clock.now() - started });
      this.save(reply);
      throw error;
    }
  }

  private finish(turn: Turn, message: AgentMessage, results?: Record<string, string>): void {
    message.done = true;
    for (const c of message.toolCalls) if (c.status === 'running' || c.status === 'awaiting_approval') c.status = 'cancelled';
    this.save(message, results);
    turn.live.delete(message.id);
  }

  /** Persists the message (keeping results already saved, unless given) and tells clients. */
  private save(message: AgentMessage, results?: Record<string, string>): AgentMessage {
    this.deps.store.agentMessages.save(message, results);
    this.deps.events.emit('agent.message', { message: { ...message, toolCalls: message.toolCalls.map((c) => ({ ...c })) } });
    return message;
  }
}

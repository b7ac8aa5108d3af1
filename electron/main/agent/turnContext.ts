/**
 * What the model is sent at each step of a turn, kept within its context window: the system
 * prompt with the repository's AGENTS.md, the conversation since its last summary, and, when
 * that nears the window, a new summary of the older turns written by the model itself.
 * The decisions are pure (policy/compaction, policy/agentInstructions); this runs them.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_CONTEXT_WINDOW, type AgentMessage, type TokenUsage } from '../../../shared/contract.js';
import type { Clock } from '../base/clock.js';
import type { AgentFolder } from '../policy/agentPaths.js';
import { instructionsPrompt, nearestNested, nestedNote, type FoundInstructions } from '../policy/agentInstructions.js';
import { estimateTextTokens, estimateTokens, planCompaction, resultLimitChars, transcriptLine, type PlanUnit } from '../policy/compaction.js';
import type { StoredAgentMessage } from '../store/agentRepositories.js';
import type { Store } from '../store/repositories.js';
import { providerMessages, sinceSummary, systemPrompt } from './conversation.js';
import { findInstructions, readInstructions } from './instructions.js';
import type { ProviderModel } from './provider/models.js';
import type { ChatMessage, Completion, CompletionRequest, ToolSpec } from './provider/openaiClient.js';
import type { Caller, SandboxTools } from './sandboxTools.js';

export interface StepRun {
  chatId: string;
  baseUrl: string;
  model: string;
  apiKey: string | null;
  caller: Caller;
  /** The profile's stated window, if any. */
  profileWindow: number | null | undefined;
}

export interface TurnContextDeps {
  store: Store;
  tools: SandboxTools;
  clock: Clock;
  complete: (req: CompletionRequest) => Promise<Completion>;
  listModels: (req: { baseUrl: string; apiKey: string | null }) => Promise<ProviderModel[]>;
  save: (message: AgentMessage) => void;
}

const SUMMARY_SYSTEM =
  'You summarise a conversation between a user and a coding agent so that the agent can carry on without it. ' +
  'Write a compact summary: what the user asked for, decisions made, files read or changed (with paths), commands run and what they showed, ' +
  'what is done and what is left. Keep exact names, paths and error messages. Do not add advice. Answer with the summary only.';
/** The transcript a summary is written from may fill this share of the window. */
const TRANSCRIPT_SHARE = 0.5;

export class TurnContext {
  /** The provider's stated window per base URL and model (null: it states none); asked once. */
  private readonly windows = new Map<string, Promise<number | null>>();
  /** Per chat, during its turn: the AGENTS.md files found, and the nested ones already given. */
  private readonly instructions = new Map<string, { found: FoundInstructions; given: Set<string> }>();

  constructor(private readonly deps: TurnContextDeps) {}

  async contextWindow(run: Pick<StepRun, 'baseUrl' | 'model' | 'apiKey' | 'profileWindow'>): Promise<number> {
    if (run.profileWindow) return run.profileWindow;
    const key = `${run.baseUrl}\n${run.model}`;
    let stated = this.windows.get(key);
    if (!stated) {
      stated = this.deps
        .listModels({ baseUrl: run.baseUrl, apiKey: run.apiKey })
        .then((models) => models.find((m) => m.id === run.model)?.contextWindow ?? null)
        .catch(() => {
          this.windows.delete(key);
          return null;
        });
      this.windows.set(key, stated);
    }
    return (await stated) ?? DEFAULT_CONTEXT_WINDOW;
  }

  /**
   * At a turn's start: the attached folders' AGENTS.md files, read in the sandbox as its user.
   * The chat says which are in use whenever that changes. Off, or no folder: none.
   */
  async beginTurn(run: StepRun, folders: readonly (AgentFolder & { hostPath?: string })[], enabled: boolean): Promise<void> {
    this.instructions.delete(run.chatId);
    if (!enabled || folders.length === 0) return;
    let found: FoundInstructions;
    try {
      found = await findInstructions(this.deps.tools, run.caller, folders.map((f) => f.containerPath));
    } catch {
      // A sandbox that cannot start fails the turn at its first tool call, with its own words.
      return;
    }
    this.instructions.set(run.chatId, { found, given: new Set() });
    if (found.roots.length === 0 && found.nested.length === 0) return;
    const shown = found.roots.map((r) => folders.find((f) => f.containerPath === r.folder)?.hostPath ?? r.folder);
    const notice = { kind: 'instructions' as const, folders: shown, nested: found.nested };
    const last = this.deps.store.agentMessages.forChat(run.chatId).filter((s) => s.message.notice?.kind === 'instructions').at(-1)?.message.notice;
    if (JSON.stringify(last) === JSON.stringify(notice)) return;
    const names = [...shown, ...found.nested].join(', ');
    this.deps.save(this.noticeMessage(run.chatId, `Using AGENTS.md from ${names}`, notice));
  }

  endTurn(chatId: string): void {
    this.instructions.delete(chatId);
  }

  /** The text a tool result carries the first time in a turn the agent works under a nested AGENTS.md. */
  async nestedFor(run: StepRun, file: string | null): Promise<string> {
    const state = this.instructions.get(run.chatId);
    if (!state || file === null) return '';
    const nearest = nearestNested(file, state.found.nested);
    if (nearest === null || state.given.has(nearest)) return '';
    state.given.add(nearest);
    const read = await readInstructions(this.deps.tools, run.caller, nearest).catch(() => null);
    return read === null ? '' : nestedNote(nearest, read.text, read.bytes);
  }

  /** The step's messages; summarises older turns first when they would not fit. */
  async messages(run: StepRun, folders: readonly AgentFolder[], taskId: string | null, tools: ToolSpec[]): Promise<ChatMessage[]> {
    const window = await this.contextWindow(run);
    const limit = resultLimitChars(window);
    const found = this.instructions.get(run.chatId)?.found;
    const system = systemPrompt(folders, taskId !== null, found ? instructionsPrompt(found) : '');
    const build = () => providerMessages(system, this.deps.store.agentMessages.forChat(run.chatId), taskId, limit);
    if (taskId !== null) return build();
    const all = this.deps.store.agentMessages.forChat(run.chatId);
    const { summary, rest } = sinceSummary(all);
    const top = rest.filter((s) => s.message.taskId === null);
    const fixed = estimateTokens([{ content: system }]) + estimateTextTokens(JSON.stringify(tools)) + estimateTextTokens(summary?.summary ?? '');
    const units: PlanUnit[] = top.map((s) => ({
      tokens: estimateTokens(providerMessages('', [s], null, limit).slice(1)),
      turnStart: s.message.role === 'user',
      unfinished: s.message.toolCalls.some((c) => c.status === 'running' || c.status === 'awaiting_approval'),
    }));
    const start = planCompaction(units, window, fixed);
    if (start === null) return build();
    await this.summarise(run, top.slice(0, start), summary?.summary ?? null, (summary?.messages ?? 0) + start, window);
    return build();
  }

  private async summarise(run: StepRun, replaced: StoredAgentMessage[], earlier: string | null, count: number, window: number): Promise<void> {
    const lines = earlier === null ? [] : [transcriptLine('summary of what came before', earlier, Infinity)];
    for (const { message: m, results } of replaced) {
      if (m.role === 'error') continue;
      if (m.content !== '') lines.push(transcriptLine(m.role, m.content));
      for (const c of m.toolCalls) lines.push(transcriptLine(`tool call ${c.name}`, `${c.arguments}\n→ ${results[c.id] ?? '(no result)'}`));
    }
    const cap = Math.floor(window * TRANSCRIPT_SHARE * 4);
    let transcript = lines.join('\n\n');
    // Too long even so: its start and its end, which carry the task and where it stands.
    if (transcript.length > cap) transcript = `${transcript.slice(0, cap / 2)}\n[… the middle of the transcript is left out …]\n${transcript.slice(-cap / 2)}`;
    const done = await this.deps.complete({
      baseUrl: run.baseUrl, apiKey: run.apiKey, model: run.model, signal: run.caller.signal,
      messages: [{ role: 'system', content: SUMMARY_SYSTEM }, { role: 'user', content: `Summarise this conversation:\n\n${transcript}` }],
    });
    const summary = done.content.trim() || '(The model wrote no summary.)';
    const through = (replaced.at(-1) as StoredAgentMessage).message.id;
    const message = this.noticeMessage(run.chatId, 'Earlier turns summarised', { kind: 'summary', summary, messages: count, through });
    if (done.usage) message.usage = done.usage satisfies TokenUsage;
    this.deps.save(message);
  }

  private noticeMessage(chatId: string, content: string, notice: NonNullable<AgentMessage['notice']>): AgentMessage {
    return { id: randomUUID(), chatId, taskId: null, parentCallId: null, role: 'assistant', content, toolCalls: [], done: true, createdAt: this.deps.clock.now(), notice };
  }
}

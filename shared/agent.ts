/**
 * The agent's part of the contract: a chat's conversation with an OpenAI-compatible model whose
 * tools act only inside that chat's sandbox. Shapes only; main validates every request.
 */
import { z } from 'zod';

/**
 * An MCP server the agent may use. stdio (`command`): started inside the chat's sandbox, run there
 * as the sandbox user with the profile's network rules, speaking MCP on its stdin and stdout.
 * HTTP (`url`, Streamable HTTP): reached from inside the sandbox too, through the same network
 * rules as any of its programs (the allowlist's proxy; never under 'none'). Exactly one of the
 * two. Its tools are offered to the agent as mcp__<name>__<tool>.
 */
export const McpServerSetting = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,24}$/, 'An MCP server name is 1-24 letters, digits, - or _.'),
    /** The program and its arguments, as run inside the sandbox (no shell), e.g. ["python3", "/workspace/tools/server.py"]. */
    command: z
      .array(z.string().min(1, 'An MCP server\'s command has no empty words.').max(4096, 'An MCP server\'s command word is at most 4096 characters.'))
      .min(1, 'Give the MCP server\'s command (the program and its arguments).')
      .max(64, 'An MCP server\'s command has at most 64 words.')
      .optional(),
    /** A Streamable HTTP server's endpoint, such as https://mcp.example.com/mcp. */
    url: z
      .string()
      .trim()
      .max(2048, 'An MCP server URL is at most 2048 characters.')
      .url('An MCP server URL must be a full URL, such as https://mcp.example.com/mcp.')
      .refine((u) => /^https?:\/\//i.test(u), 'An MCP server URL must start with http:// or https://.')
      .optional(),
    /** Whether its tool calls wait for the user; absent: as the profile's approval says. */
    approval: z.enum(['ask', 'auto']).optional(),
    /** How long one tool call may take before it fails (and the server is stopped); default 60. */
    timeoutSeconds: z.number().int('An MCP server\'s timeout is a whole number of seconds.').min(1, 'An MCP server\'s timeout is 1 to 3600 seconds.').max(3600, 'An MCP server\'s timeout is 1 to 3600 seconds.').optional(),
  })
  .refine((s) => (s.command === undefined) !== (s.url === undefined), {
    message: 'An MCP server has either a command (run in the sandbox) or a URL (HTTP), not both and not neither.',
    path: ['command'],
  });
export type McpServerSetting = z.infer<typeof McpServerSetting>;

/** Per profile: which model to talk to, and whether each command waits for the user. */
export const AgentSettings = z.object({
  /** An OpenAI-compatible endpoint's base URL, such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  baseUrl: z
    .string()
    .trim()
    .max(2048)
    .url('The provider URL must be a full URL, such as https://api.openai.com/v1.')
    .refine((u) => /^https?:\/\//i.test(u), 'The provider URL must start with http:// or https://.')
    .nullable(),
  model: z.string().trim().min(1).max(256).nullable(),
  /**
   * Another profile whose provider (URL and key) this one uses, so several profiles share one
   * provider and one key; its own model, when set, still picks the model. Null or absent: its own.
   */
  providerFrom: z.string().trim().min(1).max(64).nullable().optional(),
  /** 'ask': every command and file write waits for the user. 'auto': they run at once. */
  approval: z.enum(['ask', 'auto']),
  /**
   * The model's context window in tokens. Absent or null: the figure the provider's /v1/models
   * reports for the model, else DEFAULT_CONTEXT_WINDOW. Berth summarises older turns near it.
   */
  contextWindow: z
    .number()
    .int('The context window is a whole number of tokens.')
    .min(2048, 'The context window is at least 2048 tokens.')
    .max(10_000_000, 'The context window is at most 10,000,000 tokens.')
    .nullable()
    .optional(),
  /** MCP servers the agent may use (stdio in the sandbox, or HTTP through its network); names are unique. */
  mcpServers: z
    .array(McpServerSetting)
    .max(16, 'A profile has at most 16 MCP servers.')
    .refine((list) => new Set(list.map((m) => m.name)).size === list.length, 'Each MCP server needs its own name.')
    .optional(),
});
export type AgentSettings = z.infer<typeof AgentSettings>;
export const DEFAULT_AGENT_SETTINGS: AgentSettings = { baseUrl: null, model: null, approval: 'ask' };
/** The context window assumed when neither the profile nor the provider states one (tokens). */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

export const AGENT_TOOL_NAMES = ['terminal', 'read_file', 'write_file', 'edit_file', 'list_dir', 'search', 'find_files', 'delegate_task'] as const;
export const AgentToolName = z.enum(AGENT_TOOL_NAMES);
export type AgentToolName = z.infer<typeof AgentToolName>;

export const ToolCallStatus = z.enum(['awaiting_approval', 'running', 'done', 'failed', 'denied', 'cancelled']);
export type ToolCallStatus = z.infer<typeof ToolCallStatus>;

/** One tool call as the user sees it: a card with what ran, where, how it ended. */
export const AgentToolCall = z.object({
  id: z.string(),
  /** The name the model asked for (it may not be one of Berth's tools: then it failed). */
  name: z.string(),
  /** The model's arguments, as the JSON text it sent. */
  arguments: z.string(),
  status: ToolCallStatus,
  /** What ran: the shell command, or a short description of a file operation. */
  command: z.string().nullable(),
  /** Where it ran, inside the sandbox. */
  cwd: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  /** What the tool printed or returned, shown collapsed. */
  output: z.string().nullable(),
  /** A delegate_task call's subagent: its messages carry this task id. */
  subtaskId: z.string().nullable(),
  /** An edit_file call's change, as a unified diff (absent for every other tool, and in older chats). */
  diff: z.string().nullable().optional(),
});
export type AgentToolCall = z.infer<typeof AgentToolCall>;

/** Tokens the provider reported for one model answer (its usage figures). */
export const TokenUsage = z.object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative() });
export type TokenUsage = z.infer<typeof TokenUsage>;

/** What Berth itself says in the conversation, between the messages. */
export const AgentNotice = z.discriminatedUnion('kind', [
  /** The repository's AGENTS.md files given to the agent as instructions (paths inside the sandbox). */
  z.object({
    kind: z.literal('instructions'),
    /** The attached folders whose own AGENTS.md is in the instructions. */
    folders: z.array(z.string()),
    /** AGENTS.md files deeper in those folders: the agent gets each one's text when it works under it. */
    nested: z.array(z.string()),
  }),
  /** Earlier turns were summarised to fit the model's context window. */
  z.object({
    kind: z.literal('summary'),
    /** The model's summary, which replaces the summarised messages in what it is sent. */
    summary: z.string(),
    /** How many messages it replaces. */
    messages: z.number().int().nonnegative(),
    /** The last message it replaces: it and every one before it are sent as this summary. */
    through: z.string(),
  }),
]);
export type AgentNotice = z.infer<typeof AgentNotice>;

export const AgentMessage = z.object({
  id: z.string(),
  chatId: z.string(),
  /** Null for the chat's own agent; a subagent's task id otherwise. */
  taskId: z.string().nullable(),
  /** The delegate_task call a subagent's message belongs under; null at the top level. */
  parentCallId: z.string().nullable(),
  role: z.enum(['user', 'assistant', 'error']),
  content: z.string(),
  toolCalls: z.array(AgentToolCall),
  /** False while the model is still streaming this message. */
  done: z.boolean(),
  createdAt: z.number(),
  /** A notice of Berth's (role 'assistant', no tool calls): not the model's words. */
  notice: AgentNotice.optional(),
  /** An assistant message's tokens as the provider reported them (absent when it reported none). */
  usage: TokenUsage.optional(),
});
export type AgentMessage = z.infer<typeof AgentMessage>;

export const ApprovalRequest = z.object({
  approvalId: z.string(),
  chatId: z.string(),
  /** Null for the chat's own agent; the subagent's task id when a subagent asks. */
  taskId: z.string().nullable(),
  callId: z.string(),
  tool: z.string(),
  /** The command exactly as it would run (or the file it would write, resolved). */
  command: z.string(),
  cwd: z.string().nullable(),
  /** For a file write: the content it would write; for an edit, its unified diff (either cut to its first 20,000 characters). */
  detail: z.string().nullable(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

export const KeyStatus = z.object({
  profile: z.string(),
  hasKey: z.boolean(),
  /** The origin the key is sent to; a key is never sent anywhere else. */
  origin: z.string().nullable(),
});
export type KeyStatus = z.infer<typeof KeyStatus>;

const ChatIdField = z.string().min(1).max(256);

/** A chat's own agent options. */
export const AgentChatOptions = z.object({
  /** Whether the attached folders' AGENTS.md files are given to the agent (default on). */
  instructions: z.boolean(),
  /** The model for this chat; null: the profile's. */
  model: z.string().trim().min(1).max(256).nullable(),
});
export type AgentChatOptions = z.infer<typeof AgentChatOptions>;
const ProfileField = z.string().trim().min(1).max(64);

export const agentMethods = {
  /** The chat's conversation, oldest first, with whether a turn is running and what waits for the user. */
  'agent.history': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({
      messages: z.array(AgentMessage),
      running: z.boolean(),
      approvals: z.array(ApprovalRequest),
      /** "Allow for this chat" was chosen: its commands run without asking until revoked or Berth restarts. */
      allowedForChat: z.boolean(),
      /** The chat's own options (absent: the defaults, AGENTS.md on and the profile's model). */
      options: AgentChatOptions.optional(),
      /** The context window in use (tokens): the profile's, the provider's figure, or the default. */
      contextWindow: z.number().int().nullable().optional(),
    }),
  },
  /** Changes the chat's own agent options; what is not given stays. */
  'agent.setOptions': {
    request: z.object({ chatId: ChatIdField, instructions: z.boolean().optional(), model: AgentChatOptions.shape.model.optional() }).strict(),
    response: AgentChatOptions,
  },
  /** The models the profile's provider lists (GET /v1/models), and the chat's current one. */
  'agent.models': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({ models: z.array(z.string()), current: z.string().nullable() }),
  },
  /**
   * Every approval waiting in any chat of this instance: what a page that just (re)connected
   * badges in the sidebar before the user opens those chats.
   */
  'agent.waiting': { request: z.object({}).strict(), response: z.object({ approvals: z.array(ApprovalRequest) }) },
  /** Sends the user's message and starts the agent; progress arrives as agent.* events. */
  'agent.send': {
    request: z.object({ chatId: ChatIdField, text: z.string().trim().min(1, 'Write a message first.').max(200_000) }).strict(),
    response: z.object({ message: AgentMessage }),
  },
  /** Stops the running turn: the model's stream, and any command it started in the sandbox. */
  'agent.stop': { request: z.object({ chatId: ChatIdField }).strict(), response: z.object({ stopped: z.boolean() }) },
  'agent.approve': {
    request: z
      .object({
        chatId: ChatIdField,
        approvalId: z.string().min(1).max(128),
        decision: z.enum(['once', 'chat', 'deny']),
        /** With 'deny': why, for the agent (it goes into the tool's result). */
        reason: z.string().max(2000).optional(),
      })
      .strict(),
    response: z.object({}),
  },
  /** Takes back "Allow for this chat": the chat's next command asks again. */
  'agent.revokeAllow': { request: z.object({ chatId: ChatIdField }).strict(), response: z.object({}) },
  /** Saves the profile's API key, encrypted; it is bound to the profile and the provider's origin. */
  'agent.setKey': {
    request: z
      .object({
        profile: ProfileField,
        apiKey: z
          .string()
          .trim()
          .min(1, 'Paste the API key.')
          .max(4096)
          .regex(/^[\x21-\x7e]+$/, 'An API key is one line of visible characters, without spaces; check what was pasted.'),
      })
      .strict(),
    response: KeyStatus,
  },
  'agent.clearKey': { request: z.object({ profile: ProfileField }).strict(), response: KeyStatus },
  'agent.keyStatus': { request: z.object({ profile: ProfileField }).strict(), response: KeyStatus },
} as const;

export const agentEvents = {
  /** A message was added or changed (a tool call's status, a finished answer): replace it whole. */
  'agent.message': z.object({ message: AgentMessage }),
  /** More streamed text for a message that is not done yet. */
  'agent.delta': z.object({ chatId: z.string(), messageId: z.string(), text: z.string() }),
  /** A turn started or ended; an error says why it ended early. */
  'agent.state': z.object({
    chatId: z.string(),
    running: z.boolean(),
    error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).nullable(),
  }),
  /** A command waits for the user (profile approval "ask"). */
  'agent.approval': ApprovalRequest,
  /** "Allow for this chat" was chosen (true) or taken back (false). */
  'agent.allowed': z.object({ chatId: z.string(), allowed: z.boolean() }),
  /** An approval was answered or dropped (stopped turn): hide its prompt. */
  'agent.approvalDone': z.object({ chatId: z.string(), approvalId: z.string() }),
} as const;

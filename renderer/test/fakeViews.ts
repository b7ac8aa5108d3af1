/** The plain views the fake API answers with (profiles, chats, agent messages, Review copies), for tests to build their own. */
import type {
  AgentChatOptions,
  AgentMessage,
  AgentToolCall,
  ApprovalRequest,
  AttachmentView,
  ChatView,
  CopyChanges,
  FileChange,
  EngineStatus,
  EventName,
  EnvironmentStatus,
  ProfileSettings,
  ProfileView,
} from '../../shared/contract';

export const DEFAULT_SETTINGS: ProfileSettings = {
  setupCommand: null,
  backend: 'docker',
  image: 'debian:bookworm-slim',
  egress: 'allowlist',
  egressAllow: ['registry.npmjs.org', 'github.com'],
  containerScope: 'chat',
  mountWorkspace: true,
  limits: { memoryMb: 2048, cpus: 2, pids: 512 },
  retention: { idleStopMinutes: 30, onQuit: 'stop' },
  sandboxUser: '1000:1000',
  homeTemplate: null,
  staticMounts: [],
  agent: { baseUrl: null, model: null, approval: 'ask' },
  warmPool: 0,
  engine: { kind: 'default' },
};

export function noEnvironment(chatId: string): EnvironmentStatus {
  return { chatId, state: 'none', folder: null, source: null, image: null, preparedAt: null, sizeBytes: null, reused: false, ignored: [], notes: [], ports: [], workspaceFolder: null, error: null };
}

export function profileView(name: string, settings: Partial<ProfileSettings> = {}): ProfileView {
  const s = { ...DEFAULT_SETTINGS, ...settings };
  return {
    name,
    settings: s,
    networkName: s.egress === 'open' ? `berth-${name}` : null,
    boundary: s.backend === 'local' ? 'No sandbox.' : 'A container per chat.',
    createdAt: 1,
  };
}

let nextId = 1;
/** A number no other fake view or call of this run has had. */
export function freshId(): number {
  return nextId++;
}

export function chatView(partial: Partial<ChatView> & { title: string }): ChatView {
  const chat = { id: `chat-${nextId++}`, profile: 'default', image: null, createdAt: nextId, attachments: [], attemptOf: null, ...partial };
  return { ...chat, lastActiveAt: partial.lastActiveAt ?? chat.createdAt };
}

export function agentMessage(partial: Partial<AgentMessage> & { chatId: string }): AgentMessage {
  return {
    id: `msg-${nextId++}`,
    taskId: null,
    parentCallId: null,
    role: 'assistant',
    content: '',
    toolCalls: [],
    done: true,
    createdAt: nextId,
    ...partial,
  };
}

export function toolCall(partial: Partial<AgentToolCall> = {}): AgentToolCall {
  return {
    id: `call-${nextId++}`,
    name: 'terminal',
    arguments: '{}',
    status: 'done',
    command: null,
    cwd: null,
    exitCode: null,
    durationMs: null,
    output: null,
    subtaskId: null,
    ...partial,
  };
}

/** What agent.history answers for one chat. */
export interface FakeConversation {
  messages: AgentMessage[];
  running: boolean;
  approvals: ApprovalRequest[];
  allowedForChat?: boolean;
  options?: AgentChatOptions;
}

export type AgentEventName = Extract<EventName, `agent.${string}`>;

/** A Review-mode copy's info as main describes it after the attach (a git repository, nothing changed). */
export function reviewInfo(chatId: string, contents?: { ignored?: boolean; include?: string[] }): NonNullable<AttachmentView['review']> {
  return {
    kind: 'git',
    branch: `berth/${chatId}`,
    baseCommit: '0123456789abcdef0123456789abcdef01234567',
    uncommittedFiles: [],
    uncommittedCount: 0,
    contents: { ignored: contents?.ignored ?? false, include: contents?.include ?? [] },
    excludedSecrets: [],
    fileCount: 3,
    createdAt: 1,
    changedCount: 0,
  };
}

export function fileChange(partial: Partial<FileChange> & { path: string }): FileChange {
  return {
    oldPath: null,
    status: 'modified',
    binary: false,
    tooLarge: false,
    symlink: false,
    additions: 1,
    deletions: 1,
    diff: `diff --git a/${partial.path} b/${partial.path}\n--- a/${partial.path}\n+++ b/${partial.path}\n@@ -1 +1 @@\n-old\n+new\n`,
    diffOmitted: false,
    ...partial,
  };
}

export function countChanges(files: readonly FileChange[]): CopyChanges['counts'] {
  const n = (s: FileChange['status']) => files.filter((f) => f.status === s).length;
  return { added: n('added'), modified: n('modified') + n('typechange'), deleted: n('deleted'), renamed: n('renamed'), total: files.length };
}

/** One Review-mode copy with these changed files. */
export function copyChanges(hostPath: string, files: FileChange[], partial: Partial<CopyChanges> = {}): CopyChanges {
  const name = hostPath.split('/').filter(Boolean).pop() ?? 'root';
  return { hostPath, containerPath: `/workspace/${name}`, kind: 'git', branch: 'berth/chat', exportBranch: null, files, counts: countChanges(files), truncated: false, version: 'v1', at: 1, lastApply: null, ...partial };
}

export const OK_ENGINE: EngineStatus = { state: 'ok', version: '24.0.7', endpoint: 'unix:///var/run/docker.sock', message: null, hint: null };


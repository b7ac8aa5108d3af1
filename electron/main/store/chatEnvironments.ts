/**
 * A chat's project environment as kept in the settings table (`environment.chat:<id>`): written
 * by environment/ as it prepares one, read by sandbox/ at each bring-up for the variables and
 * start folder the container is made with. Both read it here, so neither calls the other for it.
 */
import type { EnvironmentStatus } from '../../../shared/environment.js';
import type { SettingsRepo } from './repositories.js';

export interface ChatEnvironment extends Omit<EnvironmentStatus, 'chatId'> {
  key: string | null;
  env: string[];
  /**
   * What the chat's sandbox is made with now: set together with the chat's image when the
   * environment moves the sandbox (so a record saved while preparing changes no container).
   * Records written before this field existed use `env` and `workspaceFolder`.
   */
  applied?: SandboxSettings | null;
}

/** The variables and start folder a chat's sandbox is made with while it has an environment. */
export interface SandboxSettings {
  env: string[];
  workingDir: string | null;
  /** postStartCommand as one sh script, run at each start of the container once the environment is ready. */
  postStart?: { script: string; source: string } | null;
}

/** A JSON value kept in the settings table under `key` ('' when there is none). */
function jsonSetting<T>(key: string) {
  return {
    load: (settings: SettingsRepo): T | null => {
      const raw = settings.get(key);
      return raw ? (JSON.parse(raw) as T) : null;
    },
    save: (settings: SettingsRepo, value: T | null): void => settings.set(key, value ? JSON.stringify(value) : ''),
  };
}

const chatRecord = (chatId: string) => jsonSetting<ChatEnvironment>(`environment.chat:${chatId}`);
const warmRecord = (profile: string) => jsonSetting<WarmEnvironment>(`environment.warm:${profile}`);

export function loadChatEnvironment(settings: SettingsRepo, chatId: string): ChatEnvironment | null {
  return chatRecord(chatId).load(settings);
}

export function saveChatEnvironment(settings: SettingsRepo, chatId: string, env: ChatEnvironment | null): void {
  chatRecord(chatId).save(settings, env);
}

/** What the chat's sandbox is made with (null: the profile's own settings). */
export function chatSandboxSettings(settings: SettingsRepo, chatId: string): SandboxSettings | null {
  return appliedOf(loadChatEnvironment(settings, chatId));
}

/** A record's settings in effect now (an older record's from its variables and folder). */
export function appliedOf(env: ChatEnvironment | null): SandboxSettings | null {
  if (!env || env.state === 'none') return null;
  if (env.applied !== undefined) return env.applied;
  return { env: env.env, workingDir: env.workspaceFolder };
}

/**
 * What a profile's warm sandboxes are made with: the prepared environment its chats last took
 * (sandbox/warmPool). A chat that then uses that environment finds its sandbox made already.
 */
export interface WarmEnvironment extends SandboxSettings {
  image: string;
  /** Where it came from, for the line a chat that does not use it reads. */
  source: string;
}

export function loadWarmEnvironment(settings: SettingsRepo, profile: string): WarmEnvironment | null {
  return warmRecord(profile).load(settings);
}

export function saveWarmEnvironment(settings: SettingsRepo, profile: string, warm: WarmEnvironment | null): void {
  warmRecord(profile).save(settings, warm);
}

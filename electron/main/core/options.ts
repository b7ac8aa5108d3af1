/** What a core is built with: the one input of createCore (core.ts) and of the services it builds. */
import type { Clock } from '../base/clock.js';
import type { Engine } from '../engine/dockerEngine.js';
import type { HostUser } from '../policy/sandboxUser.js';
import type { Complete } from '../agent/agentService.js';
import type { SecretBox } from '../agent/secrets/secretBox.js';
import type { EgressOptions } from '../egress/egressService.js';

export interface CoreOptions {
  /** Where Berth keeps its store and the sandboxes' homes (Electron's userData in the app). */
  dataDir: string;
  /** A Docker engine client; by default the engine the user's own Docker tools use. */
  engine?: Engine;
  clock?: Clock;
  hostUser?: HostUser;
  /** Read for DOCKER_HOST only; never a source of mounts. */
  env?: NodeJS.ProcessEnv;
  /** How often orphaned containers are looked for; 0 turns the periodic sweep off. */
  reapIntervalMs?: number;
  /** How often running sandboxes are checked against their limits (sandbox.pressure); 0: never. */
  pressureEveryMs?: number;
  /** Seals provider API keys at rest: Electron's safeStorage in the app; a key file by default. */
  secrets?: () => SecretBox;
  /** The OpenAI-compatible client (tests may wrap it; it still speaks real HTTP). */
  complete?: Complete;
  /**
   * The tag of Berth's own base image, which the default profile uses and Berth builds when it
   * is missing; by default BERTH_BASE_IMAGE from env, else berth-sandbox:1 (tests use their own).
   */
  baseImage?: string;
  /** Where allowlist profiles' proxies run and reach out (tests: their own pretend internet). */
  egress?: EgressOptions;
  /** The most of a git repository's history a pooled chat's slot copies (review/reviewCopy SLOT_HISTORY_MAX_BYTES; tests lower it). */
  slotHistoryMaxBytes?: number;
  /**
   * The known_hosts files ssh:// engines' host keys are checked against; by default the user's
   * and the system's, as `ssh` reads them (tests: a file of their own). Never from the environment.
   */
  knownHostsFiles?: string[];
  /** Main's log, for what a page is told only in general (an engine check's real error); stderr by default. */
  log?: (line: string) => void;
}

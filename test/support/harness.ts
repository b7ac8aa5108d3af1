/**
 * Builds real cores on temp data folders and real workspace folders, and removes everything
 * they made: containers, networks, homes, folders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createCore, type BerthCore, type CoreOptions } from '../../electron/main/core.js';
import { BUSYBOX, removeInstanceContainers } from './docker.js';
import { record } from './testRun.js';

/** The uid the sandbox runs as on this machine: the host user's, or 1000 when tests run as root. */
export const SANDBOX_UID = process.getuid?.() === 0 ? 1000 : (process.getuid?.() ?? 1000);
export const SANDBOX_GID = process.getgid?.() === 0 ? 1000 : (process.getgid?.() ?? 1000);

export function uniqueName(prefix = 'it'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export class Harness {
  private readonly cores: BerthCore[] = [];
  private readonly dirs: string[] = [];
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-it-'));

  dataDir(): string {
    const dir = fs.mkdtempSync(path.join(this.root, 'data-'));
    return dir;
  }

  core(options: Partial<CoreOptions> = {}): BerthCore {
    const core = createCore({ dataDir: options.dataDir ?? this.dataDir(), reapIntervalMs: 0, pressureEveryMs: 0, ...options });
    this.cores.push(core);
    record('instances', core.instanceId);
    const create = core.profiles.create;
    core.profiles.create = async (req) => {
      const view = await create(req);
      if (view.networkName) record('networks', view.networkName);
      return view;
    };
    return core;
  }

  /** A folder as the user would have it: theirs, writable by the sandbox user. */
  workspace(name = 'ws', files: Record<string, string> = {}): string {
    const dir = path.join(fs.mkdtempSync(path.join(this.root, 'w-')), name);
    writeTree(dir, files, SANDBOX_UID, SANDBOX_GID);
    this.dirs.push(dir);
    return dir;
  }

  /** A core on a fresh data folder with one busybox profile, for a test file's beforeAll. */
  async coreWithProfile(options: Partial<CoreOptions> = {}): Promise<{ core: BerthCore; dataDir: string; profile: string }> {
    const dataDir = options.dataDir ?? this.dataDir();
    const core = this.core({ ...options, dataDir });
    return { core, dataDir, profile: (await this.profile(core)).name };
  }

  /**
   * A core on a fresh data folder with a profile whose agent talks to `provider` with `key` and
   * runs its tools without asking (the Review and fork tests' starting point).
   */
  async agentCore(provider: { baseUrl: string }, key: string, image: string): Promise<{ core: BerthCore; dataDir: string; profile: string }> {
    const { core, dataDir } = await this.coreWithProfile();
    const profile = (await this.profile(core, { image, agent: { baseUrl: provider.baseUrl, model: 'test-model', approval: 'auto' } })).name;
    await core.agent.setKey({ profile, apiKey: key });
    return { core, dataDir, profile };
  }

  async profile(core: BerthCore, settings: Parameters<BerthCore['profiles']['create']>[0] | Record<string, unknown> = {}) {
    return core.profiles.create({ name: uniqueName('p'), image: BUSYBOX, egress: 'open', ...settings } as Parameters<BerthCore['profiles']['create']>[0]);
  }

  /** Deletes every profile and chat the cores made, disposes them, and sweeps their labels. */
  async cleanup(): Promise<void> {
    for (const core of this.cores.splice(0)) {
      try {
        const { chats } = await core.chats.list({});
        for (const chat of chats) await core.chats.delete({ chatId: chat.id }).catch(() => undefined);
        const { profiles } = await core.profiles.list({});
        for (const p of profiles) if (p.name !== 'default') await core.profiles.delete({ name: p.name }).catch(() => undefined);
      } catch {
        // A core whose engine is unreachable has nothing on the engine.
      }
      const instance = core.instanceId;
      await core.dispose().catch(() => undefined);
      await removeInstanceContainers(instance);
    }
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** Makes `dir` (and its parents) with `files` (paths relative to it) in it, all owned by uid:gid. */
export function writeTree(dir: string, files: Record<string, string>, uid: number, gid: number): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  chownTree(dir, uid, gid);
}

export function chownTree(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p, uid, gid);
    else fs.lchownSync(p, uid, gid);
  }
}

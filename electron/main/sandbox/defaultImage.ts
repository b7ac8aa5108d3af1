/**
 * Prepares Berth's full default image (policy/defaultImage.ts) when Berth starts, so the first
 * New chat waits on no image build: from Debian's registry image where a registry answers, else
 * from a debootstrap root file system made from the Debian mirror (engine/rootfsImage.ts), or,
 * for tests, from an image already on the engine (`source`). One preparation at a time; its
 * state and progress go to `onChange` (the status bar).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { Engine, PullProgress } from '../engine/dockerEngine.js';
import { RootfsBuilder, withBuildContext, type RunProgram } from '../engine/rootfsImage.js';
import {
  FULL_DEBIAN_RECIPE, FULL_PACKAGES, FULL_ROOTFS_RECIPE, SANDBOX_GROUP_LINE, SANDBOX_PASSWD_LINE, fullFromSourceRecipe, fullTagOf,
} from '../policy/defaultImage.js';

export type PreparationState = 'idle' | 'preparing' | 'ready' | 'failed';

export interface Preparation {
  state: PreparationState;
  message: string;
  fraction: number | null;
}

export interface DefaultImageOptions {
  engine: Engine;
  /** The profile's name for Berth's default environment (berth-sandbox:1). */
  baseTag: string;
  engineIsLocal: boolean;
  /** An image on the engine to make the full one from instead of building it (tests). */
  source?: string;
  /** Skips the registry recipe (tests that must not depend on a registry being absent). */
  debian?: boolean;
  /** Resolves when the preparation may go on (a test holds it to see the minimal sandbox). */
  hold?: () => Promise<void>;
  run?: RunProgram;
  onChange?: (p: Preparation) => void;
}

export class DefaultImage {
  private inFlight: Promise<void> | null = null;
  private current: Preparation = { state: 'idle', message: '', fraction: null };

  constructor(private readonly options: DefaultImageOptions) {}

  get baseTag(): string {
    return this.options.baseTag;
  }

  get fullTag(): string {
    return fullTagOf(this.options.baseTag);
  }

  get ready(): boolean {
    return this.current.state === 'ready';
  }

  get status(): Preparation {
    return this.current;
  }

  /** Starts the preparation unless it is done or under way; resolves when it ends (never rejects). */
  prepare(): Promise<void> {
    if (this.current.state === 'ready') return Promise.resolve();
    this.inFlight ??= this.prepareOnce().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private set(p: Preparation): void {
    this.current = p;
    this.options.onChange?.(p);
  }

  private async prepareOnce(): Promise<void> {
    const tag = this.fullTag;
    try {
      if (await this.options.engine.hasImage(tag)) {
        this.set({ state: 'ready', message: `Full sandbox image ${tag} is ready.`, fraction: 1 });
        return;
      }
      this.set({ state: 'preparing', message: `Preparing the full sandbox image ${tag}…`, fraction: 0 });
      await this.options.hold?.();
      await this.build((p) => this.set({ state: 'preparing', message: p.message, fraction: p.fraction }));
      this.set({ state: 'ready', message: `Full sandbox image ${tag} is ready.`, fraction: 1 });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const hint = error instanceof BerthError && error.hint ? ` ${error.hint}` : '';
      this.set({ state: 'failed', message: `The full sandbox image could not be prepared: ${message}${hint} Chats keep the minimal sandbox; Berth tries again at its next start.`, fraction: null });
    }
  }

  private async build(onProgress: (p: PullProgress) => void): Promise<void> {
    const { engine, source } = this.options;
    const tag = this.fullTag;
    if (source) {
      await withBuildContext({ Dockerfile: fullFromSourceRecipe(source) }, (dir) => engine.buildImage({ contextDir: dir, files: [], tag, networkMode: 'none' }, onProgress));
      return;
    }
    let registryFailure: BerthError | null = null;
    if (this.options.debian !== false) {
      try {
        await withBuildContext({ Dockerfile: FULL_DEBIAN_RECIPE }, (dir) => engine.buildImage({ contextDir: dir, files: [], tag }, onProgress));
        return;
      } catch (error) {
        if (error instanceof BerthError && error.code === 'engine_unreachable') throw error;
        registryFailure = error instanceof BerthError ? error : null;
      }
    }
    const rootfs = new RootfsBuilder({ engineIsLocal: this.options.engineIsLocal, ...(this.options.run ? { run: this.options.run } : {}) });
    await rootfs.installDebootstrap(onProgress);
    const why = rootfs.problem();
    if (why) {
      throw new BerthError('image_unavailable', `${tag} could not be built${registryFailure ? ` (${registryFailure.message})` : ''}; ${why}.`, {
        hint: 'Connect to a registry, or run Berth as root on Linux with debootstrap.',
      });
    }
    await rootfs.build({ engine, tag, what: 'Full sandbox image', packages: FULL_PACKAGES, recipe: FULL_ROOTFS_RECIPE, finish: addSandboxUser }, onProgress);
  }
}

/** The sandbox user (uid 1000) and its folders, as the registry recipe's useradd makes them. */
function addSandboxUser(rootfs: string): void {
  fs.appendFileSync(path.join(rootfs, 'etc/passwd'), SANDBOX_PASSWD_LINE);
  fs.appendFileSync(path.join(rootfs, 'etc/group'), SANDBOX_GROUP_LINE);
  fs.appendFileSync(path.join(rootfs, 'etc/shadow'), 'sandbox:!:19000:0:99999:7:::\n');
  for (const dir of ['home/sandbox', 'workspace']) {
    fs.mkdirSync(path.join(rootfs, dir), { recursive: true });
    fs.chownSync(path.join(rootfs, dir), 1000, 1000);
  }
  fs.chmodSync(rootfs, 0o755);
}

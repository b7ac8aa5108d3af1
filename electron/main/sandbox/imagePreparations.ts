/**
 * What a sandbox is made from, and the images Berth prepares for it in the background: the full
 * default image (sandbox/defaultImage.ts), the egress proxy image, and each profile's setup
 * command (sandbox/setupImage.ts). Started when Berth starts, so the first New chat waits on no
 * build; their progress is the status bar's (`images.status`).
 */
import fs from 'node:fs';
import type { ProfileSettings } from '../../../shared/contract.js';
import type { ImagePreparation } from '../../../shared/imagePreparation.js';
import type { Engine, PullProgress } from '../engine/dockerEngine.js';
import { chooseImage } from '../policy/defaultImage.js';
import { DefaultImage, type Preparation } from './defaultImage.js';
import type { SandboxRequest } from './sandboxContainers.js';
import type { BuildNetwork } from './sandboxNetworks.js';
import { SetupImages } from './setupImage.js';

export interface EnvironmentsOptions {
  engine: Engine;
  baseTag: string;
  engineIsLocal: boolean;
  /**
   * BERTH_PREPARE_IMAGES=1 (the app and the browser host set it; tests choose): prepare at start
   * and give default profiles the full image. Off, the default image is the base tag as named.
   * BERTH_FULL_IMAGE_SOURCE: an image on the engine the full one is made from (tests: berth-test:bookworm).
   * BERTH_TEST_HOLD_PREPARATION: a file whose existence the preparation waits for (a test's hold).
   */
  env: NodeJS.ProcessEnv;
  /** The egress proxy image: made at start when an allowlist profile exists. */
  egress: { tag: string; ensure(onProgress: (p: PullProgress) => void): Promise<void> };
  /** The network a setup command builds on (SandboxNetworks.buildNetwork). */
  networks: { buildNetwork(profile: string, settings: ProfileSettings): Promise<BuildNetwork> };
  /** The profiles (the store's): what to prepare at start. */
  profiles: { list(): { name: string; settings: ProfileSettings }[] };
  onChange: (all: ImagePreparation[]) => void;
  /** The full default image became ready: warm sandboxes made from the minimal one are stale. */
  onDefaultReady: () => void;
  /** A profile's setup command is prepared: its warm sandboxes, made without it, are stale. */
  onSetupReady: (profile: string) => void;
}

export class ImagePreparer {
  readonly defaultImage: DefaultImage;
  readonly setup: SetupImages;
  readonly enabled: boolean;
  private readonly board = new Map<string, ImagePreparation>();

  constructor(private readonly options: EnvironmentsOptions) {
    const { env } = options;
    this.enabled = env.BERTH_PREPARE_IMAGES === '1';
    const { hold } = preparationHooks(env);
    this.defaultImage = new DefaultImage({
      engine: options.engine,
      baseTag: options.baseTag,
      engineIsLocal: options.engineIsLocal,
      ...(env.BERTH_FULL_IMAGE_SOURCE ? { source: env.BERTH_FULL_IMAGE_SOURCE } : {}),
      ...(hold ? { hold } : {}),
      onChange: (p) => {
        this.put('default', 'Full sandbox image', p);
        if (p.state === 'ready') options.onDefaultReady();
      },
    });
    this.setup = new SetupImages({
      engine: options.engine,
      // Under 'allowlist' the proxy's image first: its proxy must be on the build's sealed network when the RUN step starts.
      buildNetwork: async (profile, settings) => {
        if (settings.egress === 'allowlist') await options.egress.ensure(() => undefined);
        return options.networks.buildNetwork(profile, settings);
      },
      onChange: (profile, label, p) => {
        this.put(`setup:${profile}`, label, p);
        if (p.state === 'ready') options.onSetupReady(profile);
      },
    });
  }

  /** What the status bar lists now. */
  list(): ImagePreparation[] {
    return [...this.board.values()];
  }

  private put(id: string, label: string, p: Preparation): void {
    if (p.state === 'idle') return;
    this.board.set(id, { id, label, state: p.state, message: p.message, fraction: p.fraction === null ? null : Math.max(0, Math.min(1, p.fraction)) });
    this.options.onChange(this.list());
  }

  /** At start: the full default image, the proxy image where an allowlist profile needs it, each setup command. */
  start(): void {
    if (this.enabled) void this.defaultImage.prepare();
    const profiles = this.options.profiles.list();
    if (this.enabled && profiles.some((p) => p.settings.backend === 'docker' && p.settings.egress === 'allowlist')) this.prepareEgress();
    for (const p of profiles) if (p.settings.setupCommand) this.prepareSetup(p.name, p.settings);
  }

  prepareEgress(): void {
    const label = 'Egress proxy image';
    this.put('egress', label, { state: 'preparing', message: `Checking ${this.options.egress.tag}…`, fraction: null });
    this.options.egress.ensure((p) => this.put('egress', label, { state: 'preparing', ...p })).then(
      () => this.put('egress', label, { state: 'ready', message: `${this.options.egress.tag} is ready.`, fraction: 1 }),
      (error: unknown) => this.put('egress', label, { state: 'failed', message: error instanceof Error ? error.message : String(error), fraction: null }),
    );
  }

  /** A profile's setup command, prepared on the image its next sandbox would use (after a save, at start). */
  prepareSetup(profile: string, settings: ProfileSettings): void {
    const base = chooseImage({ requested: settings.image, baseTag: this.options.baseTag, fullReady: this.enabled && this.defaultImage.ready, running: null }).image;
    void this.setup.prepare(profile, settings, this.enabled ? base : settings.image);
  }

  /** What a running sandbox's header says now: the default environment's state moves on after it was made. */
  noteNow(requested: string, image: string, noted: string | null): string | null {
    if (!this.enabled || requested !== this.options.baseTag) return noted;
    return chooseImage({ requested, baseTag: this.options.baseTag, fullReady: this.defaultImage.ready, running: image }).note ?? noted;
  }

  /** SandboxContainers's chooseImage: the default environment first, then the profile's setup command. */
  choose(req: SandboxRequest, running: string | null): { image: string; note: string | null } {
    const d = this.enabled
      ? chooseImage({ requested: req.image, baseTag: this.options.baseTag, fullReady: this.defaultImage.ready, running })
      : { image: running ?? req.image, note: null };
    if (this.enabled && !this.defaultImage.ready && d.note) void this.defaultImage.prepare();
    if (running !== null) return { image: running, note: d.note };
    // Setup commands are prepared on this computer's engine: a profile on another engine starts from its image.
    if (req.profile.settings.engine.kind !== 'default') return d;
    // A chat on its project's environment (a devcontainer.json's image) has its own set-up: the profile's setup command is for the others.
    if (req.image !== req.profile.settings.image) return d;
    const s = this.setup.choose(req.profile.name, req.profile.settings, d.image);
    return { image: s.image, note: d.note ?? s.note };
  }
}

/** The egress image's test hooks from the environment: its build source and the same hold as the full image's. */
export function preparationHooks(env: NodeJS.ProcessEnv): { source?: string; hold?: () => Promise<void> } {
  const hold = env.BERTH_TEST_HOLD_PREPARATION;
  return { ...(env.BERTH_EGRESS_IMAGE_SOURCE ? { source: env.BERTH_EGRESS_IMAGE_SOURCE } : {}), ...(hold ? { hold: () => waitForFile(hold) } : {}) };
}

/** Resolves once `file` exists (checked twice a second): a test's hold on the preparation. */
function waitForFile(file: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (fs.existsSync(file) ? resolve() : setTimeout(check, 500).unref());
    check();
  });
}

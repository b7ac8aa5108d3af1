/**
 * Makes Berth's egress proxy image when Berth starts (or an allowlist profile first needs it) and
 * the engine does not have it: from the Debian recipe where a registry answers, otherwise (an
 * offline Linux engine on this computer, Berth running as root) from a root file system
 * debootstrap makes from the Debian mirror (engine/rootfsImage.ts). One build however many
 * ask at once; progress goes to everyone waiting for it.
 */
import { BerthError } from '../../../shared/errors.js';
import type { Engine, PullProgress } from '../engine/dockerEngine.js';
import { RootfsBuilder, withBuildContext, type RunProgram } from '../engine/rootfsImage.js';
import { EGRESS_DEBIAN_RECIPE, EGRESS_ROOTFS_PACKAGES, EGRESS_ROOTFS_RECIPE } from '../policy/egressImage.js';

export { runProgram, type RunProgram } from '../engine/rootfsImage.js';

export interface EgressImageOptions {
  engine: Engine;
  tag: string;
  /** Whether the engine runs on this computer (a socket), so a root file system made here suits it. */
  engineIsLocal: boolean;
  /** Skips the Debian recipe (tests that must not depend on a registry being absent). */
  debian?: boolean;
  run?: RunProgram;
  debootstrap?: string;
  /** An image on the engine to make it from instead of building it (tests: berth-egress:3). */
  source?: string;
  /** Resolves when the build may go on (a test holds it to see a sandbox start before its proxy). */
  hold?: () => Promise<void>;
}

export class EgressImage {
  private inFlight: Promise<void> | null = null;
  /** Everyone waiting for the build in flight sees its progress (each chat that asked, the status bar). */
  private readonly listeners = new Set<(p: PullProgress) => void>();
  private known = false;

  constructor(private readonly options: EgressImageOptions) {}

  get tag(): string {
    return this.options.tag;
  }

  /** Whether the image is known to be on the engine (after an ensure() that resolved). */
  get ready(): boolean {
    return this.known;
  }

  /** Whether the image is on the engine now. */
  async present(): Promise<boolean> {
    if (!this.inFlight) this.known ||= await this.options.engine.hasImage(this.options.tag);
    return this.known;
  }

  /** Resolves once the image is on the engine, building it first if it is missing. */
  async ensure(onProgress: (p: PullProgress) => void): Promise<void> {
    if (await this.options.engine.hasImage(this.options.tag)) {
      this.known = true;
      return;
    }
    this.listeners.add(onProgress);
    this.inFlight ??= this.build((p) => {
      for (const l of this.listeners) l(p);
    }).finally(() => {
      this.inFlight = null;
      this.listeners.clear();
    });
    try {
      await this.inFlight;
      this.known = true;
    } finally {
      this.listeners.delete(onProgress);
    }
  }

  private async build(onProgress: (p: PullProgress) => void): Promise<void> {
    const { engine, tag } = this.options;
    await this.options.hold?.();
    if (this.options.source) {
      await withBuildContext({ Dockerfile: `FROM ${this.options.source}\n` }, (dir) => engine.buildImage({ contextDir: dir, files: [], tag, networkMode: 'none' }, onProgress));
      return;
    }
    let debianFailure: BerthError | null = null;
    if (this.options.debian !== false) {
      onProgress({ message: `Building Berth's egress proxy image ${tag} (Debian's HAProxy and squid; first time only)…`, fraction: 0 });
      try {
        await withBuildContext({ Dockerfile: EGRESS_DEBIAN_RECIPE }, (dir) => engine.buildImage({ contextDir: dir, files: [], tag }, onProgress));
        return;
      } catch (error) {
        if (error instanceof BerthError && error.code === 'engine_unreachable') throw error;
        debianFailure = error instanceof BerthError ? error : null;
      }
    }
    const rootfs = new RootfsBuilder({ engineIsLocal: this.options.engineIsLocal, ...(this.options.run ? { run: this.options.run } : {}), ...(this.options.debootstrap ? { debootstrap: this.options.debootstrap } : {}) });
    await rootfs.installDebootstrap(onProgress);
    const why = rootfs.problem();
    if (why) {
      throw new BerthError(
        'image_unavailable',
        `Berth's egress proxy image ${tag} is not on this computer and could not be built${debianFailure ? ` (${debianFailure.message})` : ''}; ${why}.`,
        {
          hint: `Connect to a registry and try again, or build it once as root: sudo bash scripts/build-egress-image.sh (needs debootstrap). Until then, set the profile's egress to "open" or "none".`,
        },
      );
    }
    await rootfs.build({ engine, tag, what: 'Proxy image', packages: EGRESS_ROOTFS_PACKAGES, recipe: EGRESS_ROOTFS_RECIPE }, onProgress);
  }
}

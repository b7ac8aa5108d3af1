/**
 * Makes Berth's own base image when a chat needs it and the engine does not have it: from the
 * Debian recipe where a registry answers, otherwise (an offline Linux engine on this computer)
 * from the host's static busybox. One build however many chats ask at once.
 */
import fs from 'node:fs';
import { BerthError } from '../../../shared/errors.js';
import type { Engine, PullProgress } from '../engine/dockerEngine.js';
import { withBuildContext } from '../engine/rootfsImage.js';
import {
  BUSYBOX_CANDIDATES,
  BUSYBOX_GROUP,
  BUSYBOX_PASSWD,
  BUSYBOX_RECIPE,
  DEBIAN_RECIPE,
  engineArch,
  isStaticElf,
} from '../policy/baseImage.js';

export interface BaseImageOptions {
  engine: Engine;
  /** The tag the default profile uses (berth-sandbox:1; tests use their own). */
  tag: string;
  /** Whether the engine runs on this computer (a socket), so the host's busybox suits it. */
  engineIsLocal: boolean;
  busyboxCandidates?: readonly string[];
  /** Skips the Debian recipe (tests that must not depend on a registry being absent). */
  debian?: boolean;
}

export class BaseImage {
  private inFlight: Promise<string> | null = null;

  constructor(private readonly options: BaseImageOptions) {}

  get tag(): string {
    return this.options.tag;
  }

  /** Builds the base image; resolves with a line saying which recipe made it. */
  build(onProgress: (p: PullProgress) => void): Promise<string> {
    this.inFlight ??= this.buildOnce(onProgress).finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async buildOnce(onProgress: (p: PullProgress) => void): Promise<string> {
    const { engine, tag } = this.options;
    let debianFailure: BerthError | null = null;
    if (this.options.debian !== false) {
      onProgress({ message: `Building Berth's base image ${tag} (Debian)…`, fraction: 0 });
      try {
        await withBuildContext({ Dockerfile: DEBIAN_RECIPE }, (dir) => engine.buildImage({ contextDir: dir, files: [], tag }, onProgress));
        return `Berth built its base image ${tag} from Debian.`;
      } catch (error) {
        if (error instanceof BerthError && error.code === 'engine_unreachable') throw error;
        debianFailure = error instanceof BerthError ? error : null;
      }
    }
    const busybox = await this.staticBusybox();
    if (busybox === null) {
      throw new BerthError(
        'image_unavailable',
        `Berth's base image ${tag} is not on this computer and could not be built${debianFailure ? ` (${debianFailure.message})` : ''}.`,
        {
          hint: `Connect to a registry and try again, or build it once by hand (docker build -t ${tag} build/sandbox), or pick an image this computer has in the profile's Image field. Offline, Berth can build a minimal one when Docker runs on this Linux computer with a static busybox (apt-get install busybox-static).`,
        },
      );
    }
    onProgress({ message: `No registry answers: building a minimal base image ${tag} from this computer's busybox…`, fraction: 0 });
    await withBuildContext(
      { Dockerfile: BUSYBOX_RECIPE, passwd: BUSYBOX_PASSWD, group: BUSYBOX_GROUP, busybox: fs.readFileSync(busybox) },
      (dir) => engine.buildImage({ contextDir: dir, files: ['busybox', 'passwd', 'group'], tag, networkMode: 'none' }, onProgress),
    );
    return `No registry answered, so Berth built a minimal base image ${tag} (busybox: sh and the usual commands; no bash, git or python). With a registry, remove it (docker rmi ${tag}) and Berth builds the full Debian one.`;
  }

  /** A static busybox for the engine's architecture, when the engine runs on this Linux computer. */
  private async staticBusybox(): Promise<string | null> {
    if (!this.options.engineIsLocal || process.platform !== 'linux') return null;
    const { os: engineOs, arch } = await this.options.engine.platform();
    if (engineOs !== 'linux' || arch !== engineArch(process.arch)) return null;
    for (const candidate of this.options.busyboxCandidates ?? BUSYBOX_CANDIDATES) {
      try {
        if (isStaticElf(fs.readFileSync(candidate), process.arch)) return candidate;
      } catch {
        // not there: try the next
      }
    }
    return null;
  }
}

/**
 * A profile's setup command, prepared once into an image (policy/setupImage.ts): built through
 * the Engine API FROM the profile's image with the command as root, the profile's egress as its
 * network, nothing of the user's in it. The next chat of the profile starts from the result; a
 * changed command builds anew while the last result keeps serving. Nothing here waits: `choose`
 * answers at once from what is ready and starts what is missing.
 */
import type { ProfileSettings } from '../../../shared/contract.js';
import type { Engine } from '../engine/dockerEngine.js';
import { withBuildContext } from '../engine/rootfsImage.js';
import { preparedTag, setupKey, setupLabel, setupRecipe } from '../policy/setupImage.js';
import type { BuildNetwork } from './sandboxNetworks.js';
import type { Preparation } from './defaultImage.js';

export interface SetupImagesOptions {
  engine: Engine;
  /** The network the setup step builds on, as the profile's egress says, and its proxy's build arguments. */
  buildNetwork: (profile: string, settings: ProfileSettings) => Promise<BuildNetwork>;
  onChange: (profile: string, label: string, p: Preparation) => void;
}

interface Wanted {
  image: string;
  command: string;
  key: string | null;
}

export class SetupImages {
  private readonly wanted = new Map<string, Wanted>();
  private readonly readyKeys = new Set<string>();
  /** The last prepared image each profile had ready: it serves while a changed command builds. */
  private readonly lastReady = new Map<string, string>();
  private readonly builds = new Map<string, Promise<void>>();

  constructor(private readonly options: SetupImagesOptions) {}

  /** The image a new sandbox of the profile starts from, given the image it would use without a setup command. */
  choose(profile: string, settings: ProfileSettings, image: string): { image: string; note: string | null } {
    const command = settings.setupCommand?.trim();
    if (!command) return { image, note: null };
    const w = this.wanted.get(profile);
    if (w && w.image === image && w.command === command && w.key && this.readyKeys.has(w.key)) return { image: preparedTag(w.key), note: null };
    void this.prepare(profile, settings, image);
    const last = this.lastReady.get(profile);
    if (last) return { image: last, note: 'The profile’s setup command changed and is being prepared; this sandbox starts from the previous result.' };
    return { image, note: 'The profile’s setup command is being prepared (see the status bar); this sandbox starts without it, the next one with it.' };
  }

  /** Prepares the profile's setup command on `image` unless it is ready or under way; never rejects. */
  prepare(profile: string, settings: ProfileSettings, image: string): Promise<void> {
    const command = settings.setupCommand?.trim();
    if (!command) return Promise.resolve();
    const w = this.wanted.get(profile);
    if (w && w.image === image && w.command === command) return (w.key && this.builds.get(w.key)) || Promise.resolve();
    const mine: Wanted = { image, command, key: null };
    this.wanted.set(profile, mine);
    const label = setupLabel(profile, command);
    const done = this.keyAndBuild(profile, settings, mine, label).catch((error: unknown) => {
      this.options.onChange(profile, label, { state: 'failed', message: `${label} failed: ${error instanceof Error ? error.message : String(error)}. Chats of the profile start without it; change the command or the image to try again.`, fraction: null });
    });
    return done;
  }

  private async keyAndBuild(profile: string, settings: ProfileSettings, mine: Wanted, label: string): Promise<void> {
    const { engine } = this.options;
    const id = await engine.imageId(mine.image);
    if (!id) throw new Error(`the image ${mine.image} is not on this engine yet`);
    const key = setupKey(id, mine.command);
    mine.key = key;
    const tag = preparedTag(key);
    const existing = this.builds.get(key);
    if (existing) return existing;
    const build = (async () => {
      if (!(await engine.hasImage(tag))) {
        this.options.onChange(profile, label, { state: 'preparing', message: `${label}: starting…`, fraction: 0 });
        const net = await this.options.buildNetwork(profile, settings);
        try {
          await withBuildContext({ Dockerfile: setupRecipe(id, mine.command, key) }, (dir) =>
            engine.buildImage({ contextDir: dir, files: [], tag, networkMode: net.network, buildArgs: net.buildArgs }, (p) => this.options.onChange(profile, label, { state: 'preparing', message: `${label}: ${p.message}`, fraction: p.fraction })),
          );
        } finally {
          await net.release().catch(() => undefined);
        }
      }
      this.readyKeys.add(key);
      if (this.wanted.get(profile) === mine) this.lastReady.set(profile, tag);
      this.options.onChange(profile, label, { state: 'ready', message: `${label} is prepared: new chats start from it.`, fraction: 1 });
    })().finally(() => this.builds.delete(key));
    this.builds.set(key, build);
    return build;
  }
}

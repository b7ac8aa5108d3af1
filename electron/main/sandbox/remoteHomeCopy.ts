/**
 * A fork's home on a remote engine (forks/chatForks.ts calls it down): there a chat's home is a
 * volume of that engine (policy/remoteSpec), not a folder of this computer, so the fork gets a
 * copy of it made on that engine. A helper container that is never started mounts the two
 * volumes (policy/remoteSpec.homeCopySpec: hardened as any sandbox), the engine archives the
 * original's home and unpacks it into the fork's, owners and links as they are; nothing of it
 * passes through a folder of this computer, and the helper is removed at once. The fork's first
 * start finds its home volume there and keeps it, as a recreated sandbox keeps its own.
 */
import { BerthError } from '../../../shared/errors.js';
import type { ProfileSettings } from '../../../shared/contract.js';
import type { Engine } from '../engine/dockerEngine.js';
import { buildContainerSpec, LABEL, APP_LABEL_VALUE } from '../policy/containerSpec.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import { containerNameFor } from '../policy/names.js';
import { HOME_COPY_FROM, HOME_COPY_TO, homeCopySpec, homeVolumeFor, remoteVolumeLabels } from '../policy/remoteSpec.js';
import type { EngineRegistry } from './engineRegistry.js';
import type { SandboxContainers } from './sandboxContainers.js';

export interface RemoteHomesDeps {
  instanceId: string;
  /** The engine a profile names now. */
  engines: Pick<EngineRegistry, 'forSetting'>;
  /** The engine a key's container is on (pinned where it runs), and which one that is. */
  containers: Pick<SandboxContainers, 'engineOf' | 'engineRef'>;
  sandboxUser(settings: ProfileSettings, mounts: readonly PlannedMount[]): string;
}

export interface HomeCopyRequest {
  profile: { name: string; settings: ProfileSettings };
  /** The original chat's container key, and the fork's, and the fork's chat id (its volume's label). */
  fromKey: string;
  toKey: string;
  toChatId: string;
  /** The image to make the helper from when the original's container is gone (the chat's own, or its profile's). */
  image: string;
}

export class RemoteHomes {
  constructor(private readonly deps: RemoteHomesDeps) {}

  /**
   * Copies the original's home volume into the fork's, when the original's sandbox is on a remote
   * engine that the fork will use too and its home exists there. Nothing to do otherwise: a
   * local home is a folder (copied by the fork itself), a sandbox never started has no home yet,
   * and a sandbox whose profile moved to another engine leaves its home behind, as it would itself.
   */
  async copy(req: HomeCopyRequest): Promise<void> {
    const { settings } = req.profile;
    const ref = this.deps.containers.engineRef(req.fromKey, settings);
    if (!ref.remote || ref.id !== this.deps.engines.forSetting(settings.engine).ref.id) return;
    const engine = this.deps.containers.engineOf(req.fromKey, settings);
    const fromName = containerNameFor(this.deps.instanceId, req.fromKey);
    const toName = containerNameFor(this.deps.instanceId, req.toKey);
    const fromVolume = homeVolumeFor(fromName);
    if (!(await engine.hasVolume(fromVolume))) return;
    const image = await this.helperImage(engine, req);
    const toVolume = homeVolumeFor(toName);
    const spec = buildContainerSpec({
      // A key of its own: never taken for the fork's container, and reaped as an orphan if a crash leaves it.
      name: `${toName}-home-copy`, image, user: this.deps.sandboxUser(settings, []), instanceId: this.deps.instanceId,
      profile: req.profile.name, chatId: req.toChatId, key: `${req.toKey}#home-copy`, homeSource: '/nonexistent', mounts: [],
      limits: settings.limits, network: { mode: 'none' }, workingDir: '/',
    });
    await engine.ensureVolume(toVolume, remoteVolumeLabels({ ...spec.Labels, [LABEL.app]: APP_LABEL_VALUE, [LABEL.key]: req.toKey }));
    try {
      const id = await engine.createContainer(homeCopySpec(spec, fromVolume, toVolume));
      try {
        await engine.putArchive(id, HOME_COPY_TO.slice(0, HOME_COPY_TO.lastIndexOf('/')), await engine.getArchive(id, HOME_COPY_FROM));
      } finally {
        await engine.removeContainer(id).catch(() => undefined);
      }
    } catch (error) {
      await engine.removeVolume(toVolume).catch(() => undefined);
      throw new BerthError('container_failed', `Berth could not copy the chat's home on ${ref.label} for the fork.`, {
        hint: 'Check that the remote engine answers and has free space, then fork again.',
        cause: error,
      });
    }
  }

  /** The original container's image where it still exists (it is on that engine), else the chat's own or its profile's. */
  private async helperImage(engine: Engine, req: HomeCopyRequest): Promise<string> {
    const [found] = await engine.findContainers({ [LABEL.instance]: this.deps.instanceId, [LABEL.key]: req.fromKey });
    const image = (found ? (await engine.inspectContainer(found.id))?.image : undefined) ?? req.image;
    if (await engine.hasImage(image)) return image;
    throw new BerthError('image_unavailable', `Berth could not copy the chat's home for the fork: the image ${image} is no longer on the remote engine.`, {
      hint: 'Run a command in the original chat (its sandbox brings the image back), then fork again.',
    });
  }
}

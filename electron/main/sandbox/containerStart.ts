/**
 * Starting a key's container: its image made present (carried to a remote engine, Berth's base
 * image built, or pulled), its home prepared, the container created with its mounts checked again,
 * then started and its shell attached only after the mounts are proven (mountChecks.ts).
 */
import { BerthError } from '../../../shared/errors.js';
import fs from 'node:fs';
import type { Engine } from '../engine/dockerEngine.js';
import { LABEL, type ContainerCreateBody } from '../policy/containerSpec.js';
import type { ExpectedMount } from '../policy/mountProof.js';
import { killTreeScript } from '../policy/shellProtocol.js';
import { specForRemoteEngine } from '../policy/remoteSpec.js';
import type { HostFacts } from '../policy/sensitivePaths.js';
import { FolderRefused, resolveAttachableFolder } from '../workspace/folderValidation.js';
import { prepareHome } from '../workspace/homeSeeder.js';
import { fillRemote, prepareRemoteVolumes } from './remoteFill.js';
import { carryImage } from './remoteSandbox.js';
import { proveMounts, recheckMounts } from './mountChecks.js';
import { ShellSession } from './shellSession.js';
import type { KeyState, SandboxContainersDeps, SandboxRequest, SandboxState } from './sandboxTypes.js';
import type { ProfileSettings } from '../../../shared/contract.js';
import { containerNameFor } from '../policy/names.js';
import type { EngineHandle } from './engineRegistry.js';
import type { SandboxNetworks } from './sandboxNetworks.js';
import type { ContainerDetails } from '../engine/dockerEngine.js';
import { buildContainerSpec } from '../policy/containerSpec.js';
import { proxyEnv, sandboxNetworkName } from '../policy/egress.js';

/** What starting a container needs of the manager that owns its key. */
export interface StartContext {
  deps: SandboxContainersDeps;
  engineOf(key: string, settings?: ProfileSettings): Engine;
  homeFor(profile: string, key: string): string;
  /** Tells the key's listeners why its container went. */
  gone(key: string, reason: string): void;
}

export async function openShell(ctx: StartContext, s: KeyState, req: SandboxRequest, id: string, user: string, running: boolean, checked: readonly ExpectedMount[]): Promise<ShellSession> {
  const engine = ctx.engineOf(s.key);
  let expected = checked;
  if (!running) {
    s.phase = 'starting';
    req.onProgress('starting', 'Starting the sandbox…', null);
    // Docker resolves bind sources again at every start: check again, then prove what it mounted.
    expected = recheckMounts(req, ctx.deps.hostFacts(), ctx.deps.dataDir);
  }
  const [attached, started] = await Promise.allSettled([engine.attach(id), running ? Promise.resolve() : engine.startContainer(id)]);
  try {
    if (started.status === 'rejected') throw started.reason;
    if (attached.status === 'rejected') throw attached.reason;
    // The shell waits on stdin: nothing runs in the container until the proof passed.
    await proveMounts(
      {
        remote: Boolean(s.engine?.ref.remote),
        engine: () => ctx.engineOf(s.key),
        home: () => ctx.homeFor(req.profile.name, req.key),
        gone: (reason) => ctx.gone(req.key, reason),
        removed: () => void (s.containerId = null),
      },
      req.image, id, user, expected,
    );
    return await ShellSession.open(
      attached.value,
      (signal, serial) => engine.execOnce(id, ['/bin/sh', '-c', killTreeScript(signal, serial)], user).then(() => undefined),
      ctx.deps.clock.now,
    );
  } catch (error) {
    if (attached.status === 'fulfilled') attached.value.close();
    if (started.status === 'fulfilled' && s.containerId === id) {
      const details = await engine.inspectContainer(id).catch(() => null);
      if (details && !details.running) {
        throw new BerthError('container_failed', `The sandbox started but its shell exited at once. The image ${req.image} needs /bin/sh.`, {
          hint: 'Pick an image that has a POSIX shell (most do), in the profile settings or for this chat.',
          cause: error,
        });
      }
    }
    throw error;
  }
}

export async function createContainer(ctx: StartContext, s: KeyState, req: SandboxRequest, spec: ContainerCreateBody, imagePresent: boolean, notices: string[]): Promise<string> {
  const engine = ctx.engineOf(s.key);
  const { baseImage } = ctx.deps;
  const remote = s.engine?.ref.remote === true;
  if (!imagePresent && remote) {
    const label = s.engine?.ref.label ?? 'the remote engine';
    const onProgress = (phase: 'building' | 'pulling', message: string, fraction: number | null) => {
      s.phase = phase;
      req.onProgress(phase, message, fraction);
    };
    notices.push(...(await carryImage({ image: req.image, local: ctx.deps.engines.local().engine, remote: engine, label, baseImage, onProgress })));
  } else if (!imagePresent && req.image === baseImage.tag) {
    s.phase = 'building';
    req.onProgress('building', `Building Berth's base image ${req.image} (first run only)…`, 0);
    notices.push(await baseImage.build((p) => req.onProgress('building', p.message, p.fraction)));
  } else if (!imagePresent) {
    s.phase = 'pulling';
    req.onProgress('pulling', `Downloading the image ${req.image}…`, 0);
    await engine.pullImage(req.image, (p) => req.onProgress('pulling', p.message, p.fraction));
  }
  checkTemplate(req.profile.settings.homeTemplate, ctx.deps.hostFacts());
  // A remote sandbox's home is a volume there; nothing of this computer's home folder is used.
  if (!remote) prepareHome(ctx.homeFor(req.profile.name, req.key), req.profile.settings.homeTemplate, ctx.deps.homeOwner(req.profile.settings, spec.User ?? ''));
  s.phase = 'creating';
  req.onProgress('creating', 'Creating the sandbox…', null);
  recheckMounts(req, ctx.deps.hostFacts(), ctx.deps.dataDir);
  // An engine whose files are not this computer's never gets a local path: volumes, filled by copy.
  const body = remote ? specForRemoteEngine(spec) : spec;
  const createOnce = async () => {
    const fresh = remote ? await prepareRemoteVolumes(engine, body) : new Set<string>();
    const id = await engine.createContainer(body);
    if (remote) await fillRemote(engine, id, body, fresh, req.mounts, ctx.deps.dataDir, spec.User);
    return id;
  };
  try {
    return await createOnce();
  } catch (error) {
    // Same name: a container for this key that the label search did not see yet.
    if (error instanceof BerthError && error.code === 'already_exists') {
      const found = await engine.findContainers({ [LABEL.instance]: ctx.deps.instanceId, [LABEL.key]: req.key });
      if (found[0]) {
        await engine.removeContainer(found[0].id);
        return createOnce();
      }
    }
    throw error;
  }
}


/** A template is read on the host: the same deny-list as a mount applies (never ~ or ~/.ssh). */
export function checkTemplate(template: string | null, facts: readonly HostFacts[]): void {
  if (template === null || !fs.existsSync(template)) return;
  try {
    resolveAttachableFolder(template, facts, { template: true });
  } catch (error) {
    const why = error instanceof FolderRefused ? error.reason : error instanceof BerthError ? error.message : 'it cannot be read';
    throw new BerthError('home_template_failed', `The profile's home template "${template}" cannot be used: ${why}`, {
      hint: 'Pick a folder that holds only configuration files, such as a dotfiles folder.',
      cause: error,
    });
  }
}

/** The container a request asks for (policy/containerSpec), on the engine of `handle`. */
export function specFor(ctx: StartContext, req: SandboxRequest, s: KeyState, handle: EngineHandle, networks: SandboxNetworks): ContainerCreateBody {
  const user = ctx.deps.sandboxUser(req.profile.settings, req.mounts);
  const egress = req.profile.settings.egress;
  const network = egress === 'none'
    ? { mode: 'none' as const }
    : egress === 'allowlist'
      ? { mode: 'allowlist' as const, name: sandboxNetworkName(ctx.deps.instanceId, req.key), env: proxyEnv() }
      : { mode: 'isolated' as const, name: networks.openNetwork(handle.engine, req.profile.name, req.key).name };
  return buildContainerSpec({
    name: s.name,
    image: req.image,
    user,
    instanceId: ctx.deps.instanceId,
    profile: req.profile.name,
    chatId: req.chatId,
    key: req.key,
    homeSource: ctx.homeFor(req.profile.name, req.key),
    mounts: req.mounts,
    limits: req.profile.settings.limits,
    network,
    workingDir: req.workingDir,
    appArmorProfile: networks.appArmorOf(handle.ref.id),
    ...(req.env?.length ? { env: req.env } : {}),
  });
}

/** The key's container on its engine, if one exists: the known id, else by label (extras removed). */
export async function findExisting(ctx: StartContext, knownId: string | null, key: string): Promise<ContainerDetails | null> {
  const engine = ctx.engineOf(key);
  const known = knownId ? await engine.inspectContainer(knownId) : null;
  if (known) return known;
  const found = await engine.findContainers({ [LABEL.instance]: ctx.deps.instanceId, [LABEL.key]: key });
  for (const extra of found.slice(1)) await engine.removeContainer(extra.id);
  return found[0] ? engine.inspectContainer(found[0].id) : null;
}

/**
 * The profile's engine changed while this sandbox was stopped: its container there goes (the
 * sandbox moves at this start) and the sentence that says so is returned.
 */
export async function leaveEngine(ctx: StartContext, s: KeyState, want: EngineHandle): Promise<string> {
  const old = s.engine as EngineHandle;
  const ids = s.containerId
    ? [s.containerId]
    : (await old.engine.findContainers({ [LABEL.instance]: ctx.deps.instanceId, [LABEL.key]: s.key }).catch(() => [])).map((c) => c.id);
  for (const id of ids) await old.engine.removeContainer(id).catch(() => undefined);
  s.containerId = null;
  s.session?.close();
  s.session = null;
  return `This chat's sandbox moved from ${old.ref.label} to ${want.ref.label}, the engine its profile now uses. Attached folders are kept; the old sandbox's home and installed packages stay behind${ids.length ? ' and its container was removed' : ''}.`;
}

/** The key's sandbox as the page shows it: starting or failed from what this Berth knows, else as the engine has it. */
export async function stateOf(ctx: StartContext, s: KeyState | undefined, key: string, settings: ProfileSettings): Promise<SandboxState> {
  const engine = ctx.engineOf(key, settings);
  const name = s?.name ?? containerNameFor(ctx.deps.instanceId, key);
  if (s && ((s.lock && s.lockKind === 'bringUp') || s.phase === 'error')) {
    return { state: s.phase ?? 'starting', containerId: s.containerId, containerName: name, error: s.error };
  }
  const found = s?.containerId
    ? await engine.inspectContainer(s.containerId)
    : await engine
        .findContainers({ [LABEL.instance]: ctx.deps.instanceId, [LABEL.key]: key })
        .then((list) => (list[0] ? engine.inspectContainer(list[0].id) : null));
  if (!found) return { state: 'none', containerId: null, containerName: name, error: null };
  return { state: found.running ? 'running' : 'stopped', containerId: found.id, containerName: found.name, error: null };
}

export const PROXY_PENDING_NOTE = 'No network yet: the egress proxy is being prepared (see the status bar). This chat gains its allowlist when it is ready, without a restart.';

/** What a sandbox says about its image (a minimal one while the full one is prepared) and a proxy still coming, or null. */
export function imageNoteOf(deps: SandboxContainersDeps, s: KeyState | undefined, key: string): string | null {
  if (!s?.image || !s.requested) return null;
  const notes = [deps.imageNote?.(s.requested, s.image, s.note) ?? s.note];
  if (deps.egress?.proxyPending?.(key)) notes.push(PROXY_PENDING_NOTE);
  return notes.filter((n) => n !== null).join(' ') || null;
}

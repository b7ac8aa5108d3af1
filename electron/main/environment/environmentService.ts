/**
 * Project environments (README: Environments): a chat uses the devcontainer.json of a folder
 * attached to it. The image it names, or its Dockerfile built through the engine on the
 * profile's own network, starts the chat's sandbox (every rule of a sandbox kept: it is made
 * by SandboxContainers like any other); its create-time commands run there as the sandbox user;
 * the container is then saved as a local image keyed by what it was made from, and the next
 * chat with the same key starts from it and runs only updateContentCommand and postStartCommand.
 */
import { BerthError } from '../../../shared/errors.js';
import type { EnvironmentStatus } from '../../../shared/environment.js';
import type { EventHub, MainEvents } from '../events.js';
import type { Clock } from '../base/clock.js';
import { APP_LABEL_VALUE, LABEL } from '../policy/containerSpec.js';
import { proxyBuildArgs } from '../policy/egress.js';
import { workspaceTargets } from '../policy/mountPlan.js';
import {
  dockerfileBases, environmentKey, lifecycleScript, planEnvironment, preparedTag, userInPasswd,
  type EnvironmentPlan, type LifecycleKey,
} from '../policy/devcontainer.js';
import type { EnvironmentImageOps } from '../engine/environmentImages.js';
import type { SandboxContainers } from '../sandbox/sandboxContainers.js';
import type { SandboxService } from '../sandbox/sandboxService.js';
import type { SessionService } from '../sessions/sessionService.js';
import type { ChatRecord, ProfileRecord, Store } from '../store/repositories.js';
import type { WarmPool } from '../sandbox/warmPool.js';
import {
  appliedOf, loadChatEnvironment, loadWarmEnvironment, saveChatEnvironment, saveWarmEnvironment, type ChatEnvironment, type SandboxSettings, type WarmEnvironment,
} from '../store/chatEnvironments.js';
import { contextFiles, findConfigs, readConfig, readInside } from './devcontainerFiles.js';

export const ENV_LABEL = { key: 'berth.env.key', role: 'berth.env.role', source: 'berth.env.source', prepared: 'berth.env.prepared', user: 'berth.env.user' } as const;
const KEEP_SETTING = 'environment.keep';
export const DEFAULT_KEEP = 5;
/** A lifecycle command may install a toolchain: half an hour, as the CLI's users expect minutes. */
const COMMAND_TIMEOUT_MS = 30 * 60_000;

export interface EnvironmentDeps {
  store: Store;
  sessions: SessionService;
  sandbox: SandboxService;
  containers: SandboxContainers;
  events: EventHub;
  /** Tells terminal/ (which subscribes) that the chat's sandbox is made again from another image. */
  mainEvents: MainEvents;
  /** The profile's warm sandboxes, made again from an environment its chats took. */
  pool: Pick<WarmPool, 'rewarm'>;
  clock: Clock;
  /** Labels the bases this Berth builds (shared by every Berth through their tag), so the one that made an image can be told. */
  instanceId: string;
}

function none(chatId: string): EnvironmentStatus {
  return { chatId, state: 'none', folder: null, source: null, image: null, preparedAt: null, sizeBytes: null, reused: false, ignored: [], notes: [], ports: [], workspaceFolder: null, error: null };
}

export class EnvironmentService {
  private readonly inFlight = new Map<string, Promise<EnvironmentStatus>>();
  /** Builds started (for tests and the bench: a reuse must build nothing). */
  builds = 0;

  constructor(private readonly deps: EnvironmentDeps) {}

  /**
   * Moves the chat's sandbox to `image` made with `env.applied`: the record and the image are
   * written together, so the next bring-up makes the container once, from both (a record saved
   * while preparing changes nothing). When either changed, the chat's open terminals hear it
   * (environment.switched) and start again in place in the new sandbox, saying why.
   */
  private switchTo(chatId: string, image: string, env: ChatEnvironment): ChatEnvironment {
    const was = { image: this.deps.store.chats.get(chatId)?.image ?? null, shape: containerShape(appliedOf(this.record(chatId))) };
    this.save(chatId, env);
    this.deps.store.chats.setImage(chatId, image);
    if (was.image !== image || was.shape !== containerShape(appliedOf(env))) this.deps.mainEvents.emit('environment.switched', { chatId });
    return env;
  }

  /**
   * Ready: saved, and the prepared image with its settings becomes what the profile's warm
   * sandboxes are made from, so the next chat on the folder takes one made already (WarmPool).
   */
  private markReady(chatId: string, profile: ProfileRecord, env: ChatEnvironment, source: string): EnvironmentStatus {
    const status = this.save(chatId, env);
    const applied = appliedOf(env);
    if (!env.image || !applied) return status;
    // Its postStartCommand runs when the chat takes it (this service runs it then), not when it is warmed.
    const warm: WarmEnvironment = { image: env.image, env: applied.env, workingDir: applied.workingDir, postStart: null, source };
    const { settings } = this.deps.store;
    if (JSON.stringify(loadWarmEnvironment(settings, profile.name)) === JSON.stringify(warm)) return status;
    saveWarmEnvironment(settings, profile.name, warm);
    if (profile.settings.warmPool > 0) void this.deps.pool.rewarm(profile).catch(() => undefined);
    return status;
  }

  /** The sandbox made from the chat's image now, and clients told it is ready. */
  private async settle(chatId: string, key: string): Promise<void> {
    await this.deps.sandbox.exec({ chatId, command: 'true', timeoutMs: 60_000 }, { sandboxOnly: true });
    this.deps.events.emit('sandbox.progress', { chatId, key, phase: 'ready', message: 'Environment ready', fraction: null });
  }

  private record(chatId: string): ChatEnvironment | null {
    return loadChatEnvironment(this.deps.store.settings, chatId);
  }

  private save(chatId: string, env: ChatEnvironment): EnvironmentStatus {
    saveChatEnvironment(this.deps.store.settings, chatId, env);
    const status = this.statusOf(chatId, env);
    this.deps.events.emit('environment.status', status);
    return status;
  }

  private statusOf(chatId: string, env: ChatEnvironment | null): EnvironmentStatus {
    if (!env) return none(chatId);
    const { key: _key, env: _env, applied: _applied, ...rest } = env;
    return { chatId, ...rest };
  }

  status(chatId: string): EnvironmentStatus {
    this.deps.sessions.requireChat(chatId);
    return this.statusOf(chatId, this.record(chatId));
  }

  detect(chatId: string): { offers: { folder: string; configs: string[]; remembered: string | null }[]; status: EnvironmentStatus } {
    const chat = this.deps.sessions.requireChat(chatId);
    const offers = this.deps.store.attachments.forChat(chat.id).flatMap((a) => {
      const configs = findConfigs(a.hostPath);
      if (!configs.length) return [];
      const remembered = this.deps.store.settings.get(`environment.choice:${a.hostPath}`) ?? null;
      return [{ folder: a.hostPath, configs, remembered: remembered && configs.includes(remembered) ? remembered : null }];
    });
    return { offers, status: this.status(chat.id) };
  }

  keep(set?: number): { keep: number } {
    if (set !== undefined) this.deps.store.settings.set(KEEP_SETTING, String(set));
    return { keep: Number(this.deps.store.settings.get(KEEP_SETTING) ?? DEFAULT_KEEP) || DEFAULT_KEEP };
  }

  rebuild(chatId: string): Promise<EnvironmentStatus> {
    const env = this.record(chatId);
    if (!env?.folder || !env.source) {
      throw new BerthError('invalid_request', 'This chat uses no project environment, so there is nothing to rebuild.', { hint: 'Choose "Use this project\'s environment" first.' });
    }
    return this.use(chatId, env.folder, env.source, true);
  }

  /** One preparation per chat at a time: a second ask joins the first. */
  use(chatId: string, folder: string, config: string, rebuild = false): Promise<EnvironmentStatus> {
    const running = this.inFlight.get(chatId);
    if (running) return running;
    const work = this.prepare(chatId, folder, config, rebuild).finally(() => this.inFlight.delete(chatId));
    this.inFlight.set(chatId, work);
    return work;
  }

  private async prepare(chatId: string, folder: string, config: string, rebuild: boolean): Promise<EnvironmentStatus> {
    const chat = this.deps.sessions.requireChat(chatId);
    const profile = this.deps.sessions.requireProfile(chat.profile);
    const attached = this.deps.store.attachments.forChat(chat.id).map((a) => a.hostPath);
    const at = attached.indexOf(folder);
    if (at < 0) throw new BerthError('not_found', `The folder ${folder} is not attached to this chat.`, { hint: 'Attach it first, then use its environment.' });
    if (profile.settings.backend !== 'docker') {
      throw new BerthError('invalid_request', 'This chat’s profile runs commands on this computer, not in a sandbox, so a project environment cannot be used.', { hint: 'Switch the profile to the Docker backend.' });
    }
    if (!findConfigs(folder).includes(config)) throw new BerthError('not_found', `${config} is not a devcontainer.json in ${folder}.`, { hint: 'Pick one of the files the chat offers.' });
    this.deps.store.settings.set(`environment.choice:${folder}`, config);
    const previous = this.record(chat.id);
    const base: ChatEnvironment = {
      ...none(chat.id), state: 'preparing', folder, source: config, key: null, env: [],
      // The sandbox keeps what it was made with until switchTo moves it.
      applied: appliedOf(previous),
    };
    let current = base;
    const update = (patch: Partial<ChatEnvironment>) => (current = { ...current, ...patch });
    try {
      const { text, value } = readConfig(folder, config);
      const containerFolder = workspaceTargets(attached)[at] ?? '/workspace';
      const folderName = folder.split(/[\\/]/).filter(Boolean).pop() ?? 'workspace';
      const planned = planEnvironment(value, { source: config, folderName, containerFolder });
      if (!planned.ok) throw new BerthError('invalid_request', `${config} cannot be used: ${planned.problems.join(' ')}`, { hint: 'Change the file as each sentence says, then try again.' });
      const plan = planned.plan;
      update({ ignored: plan.ignored, ports: plan.forwardPorts, workspaceFolder: plan.workspaceFolder });
      this.save(chat.id, current);
      const target = this.deps.sandbox.resolve(chat.id).target;
      if (target.kind !== 'container') throw new BerthError('invalid_request', 'This chat has no sandbox to prepare.');
      const engine = this.deps.containers.engineOf(target.key, profile.settings);
      const ops = engine.environmentImages();
      const progress = (message: string, fraction: number | null = null) =>
        this.deps.events.emit('sandbox.progress', { chatId: chat.id, key: target.key, phase: 'building', message, fraction });

      // What it is made from: the image (pulled if missing) or the Dockerfile's bases and context.
      let baseIds: string[];
      let context: { files: string[]; digest: string } | null = null;
      let dockerfileText = '';
      if (plan.image) {
        let found = await ops.inspect(plan.image);
        if (!found) {
          await engine.pullImage(plan.image, (p) => progress(p.message, p.fraction));
          found = await ops.inspect(plan.image);
        }
        baseIds = [found?.id ?? `missing:${plan.image}`];
      } else {
        const b = plan.build as NonNullable<EnvironmentPlan['build']>;
        dockerfileText = readInside(folder, b.dockerfile);
        const inContext = relativeInside(b.context, b.dockerfile);
        context = contextFiles(folder, b.context, inContext);
        baseIds = await Promise.all(dockerfileBases(dockerfileText, b.args).map(async (ref) => (await ops.inspect(ref))?.id ?? `missing:${ref}`));
      }
      const userKey = `${profile.settings.sandboxUser}/${process.getuid?.() ?? ''}`;
      const key = environmentKey({ config: text, contextDigest: context?.digest ?? null, baseImageIds: baseIds, user: userKey });
      const tag = preparedTag(key);
      update({ key });
      const prepared = rebuild ? null : await ops.inspect(tag);
      if (prepared) {
        // Made before from the same files: no build, no create-time commands.
        // The user was looked up when the image was prepared (its label): no probe container now.
        const user = await this.userOf(ops, tag, plan, prepared.labels[ENV_LABEL.user]);
        update({ env: envOf(plan, user?.name ?? null), notes: user ? [user.note] : [], image: tag, reused: true, preparedAt: Number(prepared.labels[ENV_LABEL.prepared]) || prepared.created * 1000, sizeBytes: prepared.size });
        current = this.switchTo(chat.id, tag, withApplied(current));
        await this.run(chat, plan, 'updateContentCommand', progress);
        await this.run(chat, plan, 'postStartCommand', progress);
        await this.settle(chat.id, target.key);
        return this.markReady(chat.id, profile, ready(current, plan), `${folderName}/${config}`);
      }

      let startImage = plan.image as string;
      if (plan.build && context) {
        this.builds++;
        startImage = `berth-env-base:${key.slice(0, 20)}`;
        progress(`Building ${plan.build.dockerfile} (profile ${profile.name}, egress ${profile.settings.egress})…`, 0);
        await this.deps.containers.ensureNetwork({ key: target.key, profile, onProgress: (_phase, message, fraction) => progress(message, fraction) });
        const network = this.deps.containers.networkName(profile, target.key) ?? 'none';
        const proxyArgs = profile.settings.egress === 'allowlist' ? proxyBuildArgs() : {};
        await ops.build(
          {
            contextDir: joinInside(folder, plan.build.context), files: context.files, dockerfile: relativeInside(plan.build.context, plan.build.dockerfile),
            tag: startImage, buildArgs: { ...plan.build.args, ...proxyArgs }, target: plan.build.target, networkMode: network,
            labels: { [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: this.deps.instanceId, [ENV_LABEL.role]: 'base', [ENV_LABEL.key]: key },
          },
          (p) => progress(p.message, p.fraction),
        );
      }
      const user = await this.userOf(ops, startImage, plan);
      const userLabel = user ? { [ENV_LABEL.user]: `${user.name}:${user.uid}:${user.gid}` } : {};
      update({ env: envOf(plan, user?.name ?? null), notes: user ? [user.note] : [], reused: false });
      current = this.switchTo(chat.id, startImage, withApplied(current));
      for (const step of ['onCreateCommand', 'updateContentCommand', 'postCreateCommand'] as const) await this.run(chat, plan, step, progress);

      // Saved as a local image: the chat's folders and home are mounts, so none of them is in it.
      progress('Saving the prepared environment…');
      // A file with no create-time commands has not started the sandbox yet: what is saved is its container.
      await this.deps.sandbox.exec({ chatId: chat.id, command: 'true', timeoutMs: 60_000 }, { sandboxOnly: true });
      const { containerId } = await this.deps.sandbox.status(chat.id);
      if (!containerId) throw new BerthError('container_failed', 'The sandbox went away before its environment could be saved.', { hint: 'Choose Rebuild.' });
      const now = this.deps.clock.now();
      const [repo, tagName] = tag.split(':') as [string, string];
      const labels = { [LABEL.app]: APP_LABEL_VALUE, [ENV_LABEL.key]: key, [ENV_LABEL.role]: 'prepared', [ENV_LABEL.source]: `${folderName}/${config}`, [ENV_LABEL.prepared]: String(now), ...userLabel };
      await ops.commit(containerId, repo, tagName, [`LABEL ${Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}`]);
      const facts = await ops.inspect(tag);
      update({ image: tag, preparedAt: now, sizeBytes: facts?.size ?? null });
      current = this.switchTo(chat.id, tag, current);
      await this.prune(ops, tag);
      // The next command recreates the sandbox from the prepared image; postStart runs there.
      await this.run(chat, plan, 'postStartCommand', progress);
      await this.settle(chat.id, target.key);
      return this.markReady(chat.id, profile, ready(current, plan), `${folderName}/${config}`);
    } catch (error) {
      const e = error instanceof BerthError ? error : new BerthError('internal', `The environment could not be prepared: ${(error as Error).message}`, { cause: error });
      const failed: ChatEnvironment = { ...current, state: 'failed', error: { message: e.message, hint: e.hint ?? null } };
      // A failed rebuild leaves the chat on what it had, if anything served before.
      if (previous?.state === 'ready' && previous.image) this.switchTo(chat.id, previous.image, { ...failed, applied: appliedOf(previous) });
      else this.save(chat.id, failed);
      throw e;
    }
  }

  /** Resolves the file's user in the image: never uid 0 or gid 0, and says when it is not the sandbox's uid. */
  private async userOf(ops: EnvironmentImageOps, image: string, plan: EnvironmentPlan, known?: string): Promise<{ name: string; uid: number; gid: number; note: string } | null> {
    if (!plan.user) return null;
    const [name, uid, gid] = (known ?? '').split(':');
    const found = name && uid && gid
      ? { name, uid: Number(uid), gid: Number(gid) }
      : userInPasswd(await ops.readFile(image, '/etc/passwd', { [LABEL.app]: APP_LABEL_VALUE, [ENV_LABEL.role]: 'probe' }), plan.user);
    if (!found) {
      throw new BerthError('invalid_request', `The user "${plan.user}" that ${plan.source} names is not a user of the image (its /etc/passwd does not list it).`, { hint: 'Create the user in the Dockerfile (useradd or adduser), or name one the image has.' });
    }
    if (found.uid === 0 || found.gid === 0) {
      throw new BerthError('invalid_request', `The user "${plan.user}" is uid ${found.uid}, gid ${found.gid} in the image: Berth never runs a sandbox as root or root's group, because root in a container is one escape away from root on the engine's computer.`, {
        hint: 'Name a non-root user of the image in remoteUser, or remove it.',
      });
    }
    return { ...found, note: `${plan.user} is uid ${found.uid} in the image. The sandbox runs as its own uid (the owner of your folders' copies), which is this user when the uids are equal; USER names ${found.name} either way.` };
  }

  private async run(chat: ChatRecord, plan: EnvironmentPlan, step: LifecycleKey, progress: (m: string) => void): Promise<void> {
    const cmd = plan.commands[step];
    if (!cmd) return;
    progress(`Running ${step}…`);
    const out = await this.deps.sandbox.exec(
      { chatId: chat.id, command: lifecycleScript(cmd), timeoutMs: COMMAND_TIMEOUT_MS, ...(plan.workspaceFolder ? { workdir: plan.workspaceFolder } : {}) },
      { sandboxOnly: true },
    );
    for (const line of out.output.split('\n').filter((l) => l.trim()).slice(-20)) progress(`${step}: ${line.slice(0, 200)}`);
    if (out.exitCode !== 0) {
      throw new BerthError('container_failed', `${step} of ${plan.source} failed (exit code ${out.exitCode}${out.timedOut ? ', stopped after 30 minutes' : ''}):\n${out.output.slice(-4000)}`, {
        hint: "Fix the command in devcontainer.json (its output is above), or the network it needs in the profile's allowlist, then choose Rebuild.",
      });
    }
  }

  /** Prepared images beyond the setting go, oldest first; the one just made and images in use stay. */
  private async prune(ops: EnvironmentImageOps, keepTag: string): Promise<void> {
    const { keep } = this.keep();
    const prepared = (await ops.find({ [LABEL.app]: APP_LABEL_VALUE, [ENV_LABEL.role]: 'prepared' })).sort((a, b) => b.created - a.created);
    const inUse = new Set(this.deps.store.chats.list().map((c) => c.image).filter((i): i is string => Boolean(i)));
    let kept = 0;
    for (const image of prepared) {
      const mine = image.tags.includes(keepTag);
      if (mine || kept < keep || image.tags.some((t) => inUse.has(t))) {
        if (!mine) kept++;
        continue;
      }
      const key = image.labels[ENV_LABEL.key] ?? '';
      // An image a container still uses is refused by the engine: it stays until the next prune.
      for (const t of image.tags) await ops.remove(t).catch(() => undefined);
      if (key) await ops.remove(`berth-env-base:${key.slice(0, 20)}`).catch(() => undefined);
    }
  }

  /** The chat and its choice go together (DeletionService's chats). */
  forget(chatId: string): void {
    saveChatEnvironment(this.deps.store.settings, chatId, null);
  }
}

/** What a container is made with of the settings (its start command runs in it, not into it). */
function containerShape(applied: SandboxSettings | null): string {
  return JSON.stringify([applied?.env ?? [], applied?.workingDir ?? null]);
}

/**
 * Prepared and started: from now on each start of the chat's container runs postStartCommand
 * (sandbox/startCommand; the spec: each time the container starts), this first one having run it here.
 */
function ready(env: ChatEnvironment, plan: EnvironmentPlan): ChatEnvironment {
  const cmd = plan.commands.postStartCommand;
  const postStart = cmd ? { script: lifecycleScript(cmd), source: plan.source } : null;
  return { ...env, state: 'ready', applied: { ...(env.applied ?? { env: env.env, workingDir: env.workspaceFolder }), postStart } };
}

/** The record's variables and start folder as what the sandbox is made with. */
function withApplied(env: ChatEnvironment): ChatEnvironment {
  return { ...env, applied: { env: env.env, workingDir: env.workspaceFolder } };
}

function envOf(plan: EnvironmentPlan, user: string | null): string[] {
  const all = { ...plan.containerEnv, ...plan.remoteEnv, ...(user ? { USER: user } : {}) };
  return Object.entries(all).map(([k, v]) => `${k}=${v}`);
}

/** A path inside the folder (posix, relative) as one inside the build context; refused outside it. */
function relativeInside(context: string, file: string): string {
  const rel = context === '.' ? file : file.startsWith(`${context}/`) ? file.slice(context.length + 1) : null;
  if (rel === null) {
    throw new BerthError('invalid_request', `The Dockerfile ${file} is outside the build context ${context}, and Berth sends the engine only the context's files.`, {
      hint: 'Move the Dockerfile into the context, or widen "build.context" (for example to "..").',
    });
  }
  return rel;
}

function joinInside(folder: string, rel: string): string {
  return rel === '.' ? folder : `${folder.replace(/\/$/, '')}/${rel}`;
}

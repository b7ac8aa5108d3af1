/**
 * What each engine is, as sandboxes need it (Podman or Docker, the AppArmor profile to pin), and
 * the network a sandbox joins there: the profile's bridge ('open'; on Podman the chat's own), or
 * its own sealed one with the profile's proxy ('allowlist').
 */
import { BerthError } from '../../../shared/errors.js';
import type { Engine } from '../engine/dockerEngine.js';
import { podmanChatNetwork, podmanNoAllowlist } from '../engine/podmanNetworks.js';
import { APP_LABEL_VALUE, LABEL, appArmorProfileFor } from '../policy/containerSpec.js';
import { allowlistEngineProblem, proxyBuildArgs, sandboxNetworkName } from '../policy/egress.js';
import { networkNameFor } from '../policy/names.js';
import { openNetworkPool } from '../policy/subnets.js';
import { setupNetwork } from '../policy/setupImage.js';
import type { EngineHandle } from './engineRegistry.js';
import type { ProfileSettings } from '../../../shared/contract.js';
import type { SandboxContainersDeps, SandboxRequest } from './sandboxTypes.js';

/** The network a build's RUN steps join, the build arguments that go with it, and its removal after. */
export interface BuildNetwork {
  network: string;
  buildArgs: Record<string, string>;
  release(): Promise<void>;
}

export class SandboxNetworks {
  /** The AppArmor profile to pin, once the engine has told (undefined until then). */
  private readonly appArmor = new Map<string, string | null>();
  /** Whether each engine is Podman, once it has told (absent until then). */
  private readonly podman = new WeakMap<Engine, boolean>();

  constructor(private readonly deps: Pick<SandboxContainersDeps, 'instanceId' | 'subnetPool' | 'egress' | 'engines'>) {}

  /** Whether the engine has told both what it is and its security options. */
  knows(handle: EngineHandle): boolean {
    return this.appArmor.has(handle.ref.id) && this.podman.has(handle.engine);
  }

  /** Asks the engine once; an engine that does not answer is asked again on the next acquire. */
  async learn(handle: EngineHandle): Promise<void> {
    const [options, kind] = await Promise.all([handle.engine.securityOptions().catch(() => null), handle.engine.kind().catch(() => null)]);
    if (options !== null) this.appArmor.set(handle.ref.id, appArmorProfileFor(options));
    if (kind !== null) this.podman.set(handle.engine, kind.name === 'podman');
  }

  isPodman(engine: Engine): boolean {
    return this.podman.get(engine) === true;
  }

  appArmorOf(engineId: string): string | null {
    return this.appArmor.get(engineId) ?? null;
  }

  /**
   * The network an 'open' sandbox joins: the profile's, with inter-container traffic off, on
   * Docker; on Podman, which cannot turn that off, the chat's own isolated one (podmanNetworks.ts).
   */
  openNetwork(engine: Engine, profile: string, key: string): { name: string; labels: Record<string, string> } {
    if (this.podman.get(engine)) return podmanChatNetwork(this.deps.instanceId, profile, key);
    return { name: networkNameFor(profile), labels: { [LABEL.app]: APP_LABEL_VALUE, [LABEL.profile]: profile } };
  }

  /** The network the sandbox joins: the profile's bridge ('open'), or its own sealed one ('allowlist'). */
  async ensure(req: Pick<SandboxRequest, 'key' | 'profile' | 'onProgress'>, engineOf: () => Engine): Promise<void> {
    const { egress } = req.profile.settings;
    if (egress === 'open') {
      const engine = engineOf();
      const { name, labels } = this.openNetwork(engine, req.profile.name, req.key);
      const pool = this.deps.subnetPool;
      if (pool instanceof BerthError) throw pool;
      await engine.ensureNetwork(name, labels, pool && openNetworkPool(pool));
    } else if (egress === 'allowlist') {
      // Refused when the profile is saved too; a profile saved before that check still fails closed here.
      const elsewhere = allowlistEngineProblem(egress, this.deps.engines.forProfile(req.profile.settings).ref);
      if (elsewhere) throw new BerthError('network_failed', elsewhere.message, { hint: elsewhere.hint });
      if (!this.deps.egress) throw new BerthError('network_failed', 'This Berth cannot run the egress proxy an allowlist profile needs.', { hint: 'Set the profile\'s egress to "none" or "open".' });
      // Fails closed: Podman's networks cannot be sealed the way the allowlist needs (README, Podman).
      if (this.podman.get(engineOf())) throw podmanNoAllowlist();
      await this.deps.egress.prepareSandbox(req.profile.name, req.key, (p) => req.onProgress('building', p.message, p.fraction));
    }
  }

  /**
   * The network a profile's setup command builds on, as its egress says: none; the open network
   * its sandboxes join; or, under 'allowlist', a sealed network of its own with the profile's
   * proxy on it and the proxy's variables as build arguments (as a project environment's build
   * gets: the proxy serves only sealed networks). `release` removes what was made for the build.
   */
  async buildNetwork(profile: string, settings: ProfileSettings): Promise<BuildNetwork> {
    const none: BuildNetwork = { network: 'none', buildArgs: {}, release: async () => undefined };
    const kind = setupNetwork(settings.egress);
    if (kind === 'none') return none;
    const key = `setup:${profile}`;
    if (kind === 'sealed') {
      const egress = this.deps.egress;
      if (!egress) throw new BerthError('network_failed', 'This Berth cannot run the egress proxy an allowlist profile needs.', { hint: 'Set the profile\'s egress to "none" or "open".' });
      const handle = this.deps.engines.forProfile(settings);
      if (!this.knows(handle)) await this.learn(handle);
      // The proxy's image is made before this is asked (ImagePreparer), so the proxy has joined when it returns.
      await this.ensure({ key, profile: { name: profile, settings }, onProgress: () => undefined }, () => handle.engine);
      return { network: sandboxNetworkName(this.deps.instanceId, key), buildArgs: proxyBuildArgs(), release: () => egress.releaseSandbox(key) };
    }
    const engine = this.deps.engines.forProfile(settings).engine;
    const { name, labels } = this.openNetwork(engine, profile, key);
    const pool = this.deps.subnetPool;
    if (pool instanceof BerthError) throw pool;
    await engine.ensureNetwork(name, labels, pool && openNetworkPool(pool));
    return { ...none, network: name };
  }
}

/** profiles.*: the profile form's saves, refused before use when the engine could not honour them. */
import { DEFAULT_ENGINE_SETTING, type EngineSetting, type ProfileSettings } from '../../../../shared/contract.js';
import { providerFromProblem } from '../../../../shared/agentProvider.js';
import { BerthError } from '../../../../shared/errors.js';
import { DEFAULT_EGRESS } from '../../../../shared/egress.js';
import { engineSettingProblem } from '../../engine/engineSettingCheck.js';
import { allowlistEngineProblem } from '../../policy/egress.js';
import { causeChain } from '../../sandbox/engineCheckGate.js';
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

/** Settings a warm sandbox was made with: a change to any of them makes it stale. */
const warmShape = (s: ProfileSettings) =>
  JSON.stringify([s.backend, s.engine, s.image, s.egress, s.containerScope, s.mountWorkspace, s.limits, s.sandboxUser, s.homeTemplate, s.staticMounts, s.warmPool, s.setupCommand]);

export function profileHandlers(s: Services): Handlers<'profiles'> {
  const { store, sessions, engines, egress, sandbox, pool, fillPool, deletion, events, log } = s;
  /**
   * A profile may not ask for more CPUs than the engine's machine has (Docker would refuse the
   * container later, and the user would read Docker's words): said at save time, with the count.
   * An engine that does not answer is not asked; the start says so then.
   */
  const checkCpus = async (cpus: number | undefined, on: EngineSetting | undefined) => {
    if (cpus === undefined) return;
    const machine = await engines.forSetting(on ?? DEFAULT_ENGINE_SETTING).engine.resources().catch(() => null);
    if (machine && machine.cpus > 0 && cpus > machine.cpus) {
      throw new BerthError('invalid_request', `This Docker engine has ${machine.cpus} CPU${machine.cpus === 1 ? '' : 's'}; a sandbox cannot have ${cpus}.`, {
        hint: `Set CPUs to ${machine.cpus} or fewer.`,
      });
    }
  };
  /** A setting whose files are not what its fields say (a page may name them) is refused before use. */
  const refuseEngineSetting = (setting: EngineSetting) => {
    const problem = engineSettingProblem(setting);
    if (problem) {
      log(`engine setting refused: ${causeChain(problem)}`);
      throw problem;
    }
  };
  /** An allowlist profile on an engine its proxy cannot serve is refused when saved (policy/egress.ts), not at its first chat. */
  const refuseAllowlistElsewhere = (egressMode: string, setting: EngineSetting) => {
    // Not connected to: the setting may not be saved. One that cannot be resolved: its start says why.
    const ref = engines.refFor(setting);
    const problem = ref && allowlistEngineProblem(egressMode, ref);
    if (problem) throw new BerthError('invalid_request', problem.message, { hint: problem.hint });
  };

  /** A shared provider must be another profile's own (shared/agentProvider). */
  const refuseProviderFrom = (name: string, from: string | null | undefined) => {
    const problem = providerFromProblem(name, from, (n) => store.profiles.get(n) ?? undefined);
    if (problem) throw new BerthError('invalid_request', problem, { hint: 'Choose the profile whose provider to share, or the profile’s own provider.' });
  };

  return {
    'profiles.list': async () => ({ profiles: store.profiles.list().map((p) => sessions.profileView(p)) }),
    'profiles.create': async (req) => {
      if (req.engine) refuseEngineSetting(req.engine);
      refuseProviderFrom(req.name, req.agent?.providerFrom);
      refuseAllowlistElsewhere(req.egress ?? DEFAULT_EGRESS, req.engine ?? DEFAULT_ENGINE_SETTING);
      await checkCpus(req.limits?.cpus, req.engine);
      const view = sessions.createProfile(req);
      const created = sessions.requireProfile(view.name);
      // A setup command starts preparing when the profile is made, not when its first chat needs it.
      s.preparer.prepareSetup(created.name, created.settings);
      fillPool(created);
      return changed(s, null, view);
    },
    'profiles.update': async (req) => {
      if (req.settings.engine) refuseEngineSetting(req.settings.engine);
      const saved = sessions.requireProfile(req.name).settings;
      if (req.settings.agent) refuseProviderFrom(req.name, req.settings.agent.providerFrom);
      refuseAllowlistElsewhere(req.settings.egress ?? saved.egress, req.settings.engine ?? saved.engine);
      await checkCpus(req.settings.limits?.cpus, req.settings.engine ?? saved.engine);
      const before = warmShape(saved);
      const engineBefore = saved.engine;
      const view = sessions.updateProfile(req);
      // The running proxy takes the new list before this answers: the next request sees it.
      if (req.settings.egressAllow) await egress.allowlistChanged(view.name);
      const after = sessions.requireProfile(view.name);
      // A failure that came from the old settings (an image that does not exist) is not news now.
      for (const chat of store.chats.list(view.name)) await sandbox.forgetError(chat.id).catch(() => undefined);
      // Running sandboxes stay on their engine until they stop: their chats say so at once.
      if (req.settings.engine && engines.forSetting(req.settings.engine).ref.id !== engines.forSetting(engineBefore).ref.id) {
        for (const chat of store.chats.list(view.name)) await sandbox.engineChanged(chat.id).catch(() => undefined);
      }
      s.preparer.prepareSetup(after.name, after.settings);
      if (warmShape(after.settings) !== before) {
        await pool.drop(after.name);
        fillPool(after);
      }
      return changed(s, null, view);
    },
    // Each chat as it goes: the page's list (and the delete button's count) follows.
    'profiles.delete': async (req) => {
      const sharing = store.profiles.list().filter((p) => p.settings.agent.providerFrom === req.name).map((p) => p.name);
      if (sharing.length) {
        throw new BerthError('invalid_request', `The profile${sharing.length === 1 ? '' : 's'} ${sharing.map((n) => `"${n}"`).join(', ')} use${sharing.length === 1 ? 's' : ''} the provider of "${req.name}".`, {
          hint: 'Give them their own provider, or another profile’s, before deleting this one.',
        });
      }
      return changed(s, null, { removedChats: await deletion.deleteProfile(req.name, (chatId) => events.emit('chats.changed', { chatId })) });
    },
  };
}

/**
 * The first-chat question's methods (network.startingPoint, network.chooseStartingPoint): the
 * facts policy/startingPoint decides on, read from the store, and the answer saved through the
 * profile form's own update (so a Balanced answer is refused where the allowlist cannot run, as
 * a save is, and the warm pool and proxy follow).
 */
import { DEFAULT_PROFILE, type ParsedRequest, type ProfileSettings, type ProfileView, type Response } from '../../../shared/contract.js';
import { shouldAskStartingPoint, startingPointSettings, STARTING_POINT_SETTING } from '../policy/startingPoint.js';

type StartingPointMethod = 'network.startingPoint' | 'network.chooseStartingPoint';

export function startingPointHandlers(deps: {
  store: {
    settings: { get(key: string): string | undefined; set(key: string, value: string): void };
    chats: { list(): unknown[] };
    profiles: { list(): { name: string }[]; get(name: string): { settings: ProfileSettings } | undefined };
  };
  /** The profiles.update handler: the checks and follow-ups of a save in the profile form. */
  updateProfile(req: ParsedRequest<'profiles.update'>): Promise<ProfileView>;
}): { [M in StartingPointMethod]: (req: ParsedRequest<M>) => Promise<Response<M>> } {
  const { store } = deps;
  /** Any chat now, or a chat number ever given in a profile (sessions' "Chat N" counter): a chat was made here. */
  const chatsMade = () => store.chats.list().length > 0
    || store.profiles.list().some((p) => store.settings.get(`chats.last_number.${p.name}`) !== undefined);
  let answering: Promise<unknown> | null = null;
  return {
    'network.startingPoint': async (req) => {
      const saved = store.profiles.get(DEFAULT_PROFILE)?.settings;
      if (!saved) return { ask: false };
      return {
        ask: answering === null && shouldAskStartingPoint({
          profile: req.profile, answer: store.settings.get(STARTING_POINT_SETTING), chatsMade: chatsMade(),
          network: { egress: saved.egress, egressAllow: saved.egressAllow },
        }),
      };
    },
    'network.chooseStartingPoint': async (req) => {
      const current = () => {
        const saved = store.profiles.get(DEFAULT_PROFILE)?.settings;
        return { egress: saved?.egress ?? 'none', egressAllow: saved?.egressAllow ?? [] };
      };
      // Two windows may both have asked: the first answer counts, the second is told it did not.
      if (answering !== null || store.settings.get(STARTING_POINT_SETTING) !== undefined) return { applied: false, ...current() };
      const update = deps.updateProfile({ name: DEFAULT_PROFILE, settings: startingPointSettings(req.choice) });
      answering = update;
      try {
        const view = await update;
        store.settings.set(STARTING_POINT_SETTING, req.choice);
        return { applied: true, egress: view.settings.egress, egressAllow: view.settings.egressAllow };
      } finally {
        answering = null;
      }
    },
  };
}

/** network.*: a chat's Network log and its allowances (egress/networkHandlers), the first-chat question (egress/startingPoint). */
import { networkHandlers as egressNetworkHandlers } from '../../egress/networkHandlers.js';
import { startingPointHandlers } from '../../egress/startingPoint.js';
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';
import { profileHandlers } from './profiles.js';

export function networkHandlers(s: Services): Handlers<'network'> {
  const update = profileHandlers(s)['profiles.update'];
  return {
    ...egressNetworkHandlers({ sessions: s.sessions, egress: s.egress, profileChanged: (view) => changed(s, null, view) }),
    ...startingPointHandlers({ store: s.store, updateProfile: (req) => update(req, { client: null }) }),
  };
}

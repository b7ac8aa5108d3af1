/** network.*: a chat's Network log and its allowances (egress/networkHandlers). */
import { networkHandlers as egressNetworkHandlers } from '../../egress/networkHandlers.js';
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function networkHandlers(s: Services): Handlers<'network'> {
  return egressNetworkHandlers({ sessions: s.sessions, egress: s.egress, profileChanged: (view) => changed(s, null, view) });
}

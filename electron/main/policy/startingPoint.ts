/**
 * The first-chat question (how open the network should be: Locked down, Balanced, Open): whether
 * a New chat asks it, and what an answer sets. Pure; egress/startingPoint reads the facts.
 */
import { DEFAULT_PROFILE } from '../../../shared/contract.js';
import { DEFAULT_EGRESS, DEFAULT_EGRESS_ALLOW, type EgressMode, type StartingPointId } from '../../../shared/egress.js';
import { STARTING_POINTS } from '../../../shared/egressPresets.js';

/** The settings key that holds the answer (the starting point's id) once given. */
export const STARTING_POINT_SETTING = 'network.starting_point';

export interface StartingPointFacts {
  /** The profile the New chat is for. */
  profile: string;
  /** The stored answer, if the question was answered. */
  answer: string | undefined;
  /** Whether any chat was ever made in this data folder (one exists, or a profile has counted one). */
  chatsMade: boolean;
  /** The default profile's network as saved now. */
  network: { egress: EgressMode; egressAllow: readonly string[] };
}

/**
 * Ask only at the first New chat of a fresh data folder, for the default profile (the one the
 * answer sets), while nobody has set its network yet: a user who already chose in the profile
 * form, or who has made chats before (an upgrade), is never asked. Once answered, never again.
 */
export function shouldAskStartingPoint(facts: StartingPointFacts): boolean {
  if (facts.answer !== undefined) return false;
  if (facts.profile !== DEFAULT_PROFILE || facts.chatsMade) return false;
  return isUntouchedNetwork(facts.network);
}

/** The network a new default profile has: allowlist with the default list, in its order. */
function isUntouchedNetwork(network: StartingPointFacts['network']): boolean {
  return network.egress === DEFAULT_EGRESS
    && network.egressAllow.length === DEFAULT_EGRESS_ALLOW.length
    && network.egressAllow.every((entry, i) => entry === DEFAULT_EGRESS_ALLOW[i]);
}

/**
 * The profile settings a starting point sets: its mode, and its list where the mode uses one.
 * Locked down and Open leave the saved list alone (the default one on a fresh profile), so a user
 * who turns the allowlist on later in the profile form starts from Balanced, not from nothing.
 */
export function startingPointSettings(choice: StartingPointId): { egress: EgressMode; egressAllow?: string[] } {
  const point = STARTING_POINTS.find((p) => p.id === choice);
  if (!point) throw new Error(`No starting point "${choice}".`);
  return point.egress === 'allowlist' ? { egress: point.egress, egressAllow: [...point.egressAllow] } : { egress: point.egress };
}

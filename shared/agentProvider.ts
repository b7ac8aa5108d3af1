/**
 * Which provider a profile's agent talks to: its own URL and key, or those of the profile it
 * shares a provider with (AgentSettings.providerFrom), one step only, so a key is set in one
 * place and every profile sharing it follows. Pure: main and the page decide it the same way.
 */
import type { AgentSettings } from './agent.js';

interface ProfileLike {
  name: string;
  settings: { agent: AgentSettings };
}

export interface ResolvedProvider {
  baseUrl: string | null;
  model: string | null;
  /** The profile whose key is sent. */
  keyProfile: string;
  /** The profile whose provider is shared, or null for the profile's own. */
  sharedFrom: string | null;
}

export function resolveProvider(profile: ProfileLike, find: (name: string) => ProfileLike | undefined): ResolvedProvider | { missing: string } {
  const { agent } = profile.settings;
  const fromName = agent.providerFrom ?? null;
  if (fromName === null) return { baseUrl: agent.baseUrl, model: agent.model, keyProfile: profile.name, sharedFrom: null };
  const from = find(fromName);
  if (!from) return { missing: fromName };
  return { baseUrl: from.settings.agent.baseUrl, model: agent.model ?? from.settings.agent.model, keyProfile: from.name, sharedFrom: from.name };
}

/** Why `profile` cannot use the provider of `fromName` (among `find`'s profiles), or null. */
export function providerFromProblem(profile: string, fromName: string | null | undefined, find: (name: string) => ProfileLike | undefined): string | null {
  if (fromName === null || fromName === undefined) return null;
  if (fromName === profile) return 'A profile cannot share its own provider: choose another profile, or its own provider.';
  const from = find(fromName);
  if (!from) return `There is no profile "${fromName}" to share a provider with.`;
  if (from.settings.agent.providerFrom) {
    return `The profile "${fromName}" itself uses the provider of "${from.settings.agent.providerFrom}": share that one's directly.`;
  }
  return null;
}

/**
 * A chat's own allowances on top of its profile's list ("Allow once": host:port for 10 minutes;
 * "Allow for this chat": until revoked or the chat goes). HAProxy tells chats apart by the
 * sandbox's address on its sealed network (one sandbox per network, policy/egress.ts), so each
 * allowance becomes a pattern of that address, '@', and the entry's host:port.
 */
import type { ChatGrant } from '../../../shared/egress.js';
import { entryPattern, escapeRegex } from './egress.js';

export interface HeldGrant extends ChatGrant {
  chatId: string;
  profile: string;
}

/** The allowances still in force at `now` (an "Allow once" ends at its expiresAt). */
export function activeGrants<G extends ChatGrant>(grants: readonly G[], now: number): G[] {
  return grants.filter((g) => g.expiresAt === null || g.expiresAt > now);
}

/** When the next "Allow once" of these ends, or null: the proxy is rewritten then. */
export function nextExpiry(grants: readonly ChatGrant[], now: number): number | null {
  const times = grants.map((g) => g.expiresAt).filter((t): t is number => t !== null && t > now);
  return times.length ? Math.min(...times) : null;
}

/**
 * HAProxy's CHAT_ALLOW_FILE for one profile: per allowance in force, one pattern per address of
 * its chat's sandbox. A chat without a running sandbox has none (its address is set when it starts).
 */
export function chatAllowList(grants: readonly HeldGrant[], clients: readonly { ip: string; chatId: string }[], now: number): string {
  const lines = ["# Written by Berth: chats' own allowances, sandbox-address@host[:port] patterns."];
  for (const g of activeGrants(grants, now)) {
    for (const c of clients) if (c.chatId === g.chatId) lines.push(`^${escapeRegex(c.ip)}@${entryPattern(g.entry)}$`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The entries squid's own check allows: the profile's list and every allowance in force of its
 * chats. squid sees every CONNECT from HAProxy's loopback, not from a sandbox, so it cannot tell
 * chats apart: HAProxy decides per chat, squid still refuses whatever no chat of the profile may reach.
 */
export function squidEntries(profileList: readonly string[], grants: readonly ChatGrant[], now: number): string[] {
  return [...new Set([...profileList, ...activeGrants(grants, now).map((g) => g.entry)])];
}

/** The grants after allowing `entry` for the chat: a chat allowance replaces an "once" of the same entry, and a newer "once" restarts its 10 minutes. */
export function withGrant(grants: readonly HeldGrant[], grant: HeldGrant): HeldGrant[] {
  const same = grants.find((g) => g.chatId === grant.chatId && g.entry === grant.entry);
  const keep = grants.filter((g) => g !== same);
  // "Allow once" on an entry the chat already has for good changes nothing.
  if (same && same.scope === 'chat' && grant.scope === 'once') return [...grants];
  return [...keep, grant];
}

/** The chat's allowances as its Network view lists them, in force at `now`. */
export function grantsOf(grants: readonly HeldGrant[], chatId: string, now: number): ChatGrant[] {
  return activeGrants(grants, now).filter((g) => g.chatId === chatId).map(({ entry, scope, expiresAt }) => ({ entry, scope, expiresAt }));
}

/**
 * What a refusal says, wherever it shows: the proxy's own answer (a body and the X-Berth-Refused
 * header a tool can read), the agent's tool result and the Network view. Each says that Berth's
 * allowlist refused host:port, why, and what the user can do about it.
 */
import type { RefusalReason } from '../../../shared/egress.js';

/** The header of the proxy's 403: its value is the RefusalReason. */
export const REFUSED_HEADER = 'X-Berth-Refused';

const WHY: Record<RefusalReason, string> = {
  'not-listed': 'it is not on the allowlist of profile PROFILE, nor allowed for this chat',
  'ip-address': 'it is an IP address, and the allowlist of profile PROFILE takes host names only',
  'local-address': 'its name resolves to a local or private address (this computer, the LAN, link-local), which Berth never lets a sandbox reach',
  'not-ssh': 'the server there did not answer as an SSH server (its first line was not SSH-2.0-), and an allowlist entry for port 22 of profile PROFILE carries ssh only',
  'method': 'the allowlist of profile PROFILE lets only some methods through to it, over plain HTTP (an HTTP-only rule: HTTPS to it is refused, its methods cannot be seen without decrypting)',
};

const HOW: Record<RefusalReason, string> = {
  'not-listed': "To allow it, open this chat's Network view in Berth and choose Allow: once (this host:port for 10 minutes), for this chat, or for the profile.",
  'ip-address': 'Use the host\'s name instead, and allow that name in the chat\'s Network view in Berth.',
  'local-address': 'This cannot be allowed; a service on this computer or the LAN is reachable only from a profile whose Network is "Open".',
  'not-ssh': 'Check the host and port: an entry for port 22 is for ssh (git over ssh) only.',
  'method': "To allow it, add the method to the host's entry in the profile's allowlist (Profiles, Network), or Allow the host for this chat from its Network view (every method).",
};

/**
 * The whole sentence for one refusal; `target` is `host:port`, `profile` the profile's name as
 * shown, `method` the request's method (named for a refused method: `POST to host:port`).
 */
export function refusalMessage(reason: RefusalReason, target: string, profile: string, method?: string): string {
  const what = reason === 'method' && method ? `${method} to ${target}` : target;
  return `Berth's egress proxy refused ${what}: ${WHY[reason].replace('PROFILE', `"${profile}"`)}. ${HOW[reason]}`;
}

/**
 * A profile's name as it may stand in HAProxy's configuration (a double-quoted log-format
 * string): no quote, backslash, dollar sign (HAProxy expands environment variables in double
 * quotes), percent sign or control character, which HAProxy would read as more configuration or
 * a format directive; each such character becomes '?'.
 */
export function configSafeName(profile: string): string {
  return profile.replace(/[^A-Za-z0-9 _.,:;@+=/()[\]{}'!?#&*~^|-]/g, '?');
}

/**
 * HAProxy's answer to a refused request of each reason (when `txn.why` holds it): a 403 with the
 * header and the sentence, host and port filled in by HAProxy. `http-request return` ends the
 * request there, before any connection is made.
 */
export function haproxyRefusalRule(reason: RefusalReason, profile: string): string {
  const body = refusalMessage(reason, '%[var(txn.host)]:%[var(txn.port)]', configSafeName(profile), '%[method]').replaceAll('"', '\\"');
  return `http-request return status 403 content-type "text/plain; charset=utf-8" hdr ${REFUSED_HEADER} ${reason} lf-string "${body}\\n" if { var(txn.why) -m str ${reason} }`;
}

/** What the agent reads when a command of its ran into the policy: each refused host:port, why, and how to allow it. */
export function refusedNote(refused: readonly { host: string; port: number | null; reason?: RefusalReason | undefined }[], profile: string): string {
  const seen = new Map<string, RefusalReason>();
  for (const r of refused) {
    const target = r.port ? `${r.host}:${r.port}` : r.host;
    if (!seen.has(target)) seen.set(target, r.reason ?? 'not-listed');
  }
  const lines = [...seen].slice(0, 10).map(([target, reason]) => `- ${refusalMessage(reason, target, profile)}`);
  return `[Berth] The network policy of profile "${profile}" refused ${seen.size === 1 ? 'a request' : `${seen.size} destinations`}. This sandbox reaches only the hosts on the profile's allowlist (and those allowed for this chat), through Berth's proxy; ask the user to allow what you need.\n${lines.join('\n')}`;
}

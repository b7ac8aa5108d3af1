/**
 * Podman's way to keep chats apart. Podman's bridge (netavark) has no inter-container-traffic
 * switch (Docker's `enable_icc=false`), so one shared profile network would let every chat of
 * the profile reach every other. Instead each chat gets its own bridge, created with netavark's
 * `isolate` option: traffic between two isolated networks is dropped, so a chat's only peers
 * are its own container (and its subagents, which share it). Docker's compatible API neither
 * passes nor reports that option, so these networks are made and read through Podman's own
 * (libpod) API.
 */
import { BerthError } from '../../../shared/errors.js';
import { shortHash } from '../policy/names.js';
import { APP_LABEL_VALUE, LABEL } from '../policy/containerSpec.js';
import { PODMAN_UNSEALED } from '../policy/egress.js';

/** The libpod API version the calls name; Podman 4.0 and later answer it. */
export const LIBPOD_PREFIX = '/v4.0.0/libpod';

/** netavark's option: no traffic between this network and any other isolated one. */
export const ISOLATE_OPTION = 'isolate';

/** One request to Podman's own API; rejects like dockerode does (statusCode, json.message). */
export type LibpodDial = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => Promise<unknown>;

/** The network a chat's sandbox joins on Podman with egress 'open': its own, per instance and key. */
export function podmanChatNetwork(instanceId: string, profile: string, key: string): { name: string; labels: Record<string, string> } {
  return {
    name: `berth-${instanceId.slice(0, 8)}-chat-${shortHash(key, 12)}`,
    labels: { [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: instanceId, [LABEL.profile]: profile, [LABEL.key]: key },
  };
}

interface LibpodNetwork {
  driver?: string;
  internal?: boolean;
  options?: Record<string, string>;
}

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number })?.statusCode;
}

/**
 * Makes sure `name` is an isolated bridge Berth can use: an existing one is used only when it
 * is one (anything else would put a chat on a network others can reach), a missing one is
 * created; a create that lost a race to another Berth is fine.
 */
export async function ensureIsolatedNetwork(dial: LibpodDial, name: string, labels: Record<string, string>): Promise<void> {
  const path = `${LIBPOD_PREFIX}/networks/${encodeURIComponent(name)}`;
  const check = (info: LibpodNetwork) => {
    // 'strict' (netavark 1.6 and later; its default from netavark 2) isolates more: also accepted.
    if (info.driver === 'bridge' && ['true', 'strict'].includes(info.options?.[ISOLATE_OPTION] ?? '')) return;
    throw new BerthError(
      'network_failed',
      `The Podman network ${name} exists but is not isolated (netavark's isolate option is off), so other containers could reach the chat; Berth will not use it.`,
      { hint: `Remove it (podman network rm ${name}) and try again; Berth creates it correctly.` },
    );
  };
  try {
    check((await dial('GET', `${path}/json`)) as LibpodNetwork);
    return;
  } catch (error) {
    if (error instanceof BerthError || statusOf(error) !== 404) throw error;
  }
  try {
    await createRetryingInterfaceRace(() => dial('POST', `${LIBPOD_PREFIX}/networks/create`, { name, driver: 'bridge', internal: false, labels, options: { [ISOLATE_OPTION]: 'true' } }));
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
    // Another Berth made it first: use it only if it is what Berth makes.
    check((await dial('GET', `${path}/json`)) as LibpodNetwork);
  }
}

/**
 * Podman picks a free subnet by listing the host's interface addresses; when an interface goes
 * away during that listing (another container's veth removed at that moment: routine on a busy
 * host), Go's listing fails and the create answers 500 "route ip+net: no such network
 * interface". Nothing was made: trying again a few times is the fix, not a failed chat.
 */
export const INTERFACE_RACE = /route ip\+net: no such network interface/;
const INTERFACE_RACE_TRIES = 5;

async function createRetryingInterfaceRace(create: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await create();
      return;
    } catch (error) {
      const message = (error as { json?: { message?: unknown } })?.json?.message ?? (error as Error)?.message;
      if (attempt >= INTERFACE_RACE_TRIES || !INTERFACE_RACE.test(String(message))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/**
 * The allowlist's sealed network (egress/) is a bridge with no address on the host and no route
 * out, so the sandbox's only peer is its proxy. Podman's bridges always hold their gateway
 * address on the host (netavark has no `inhibit_ipv4`), so the host would be a peer: refused.
 */
export function podmanNoAllowlist(): BerthError {
  return new BerthError(
    'network_failed',
    `Egress "allowlist" is not available on Podman: its ${PODMAN_UNSEALED}.`,
    { hint: 'Set the profile\'s egress to "none" (no network) or "open" (each chat on its own isolated network), or run this profile on Docker.' },
  );
}

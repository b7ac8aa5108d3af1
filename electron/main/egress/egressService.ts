/**
 * Runs each allowlist profile's filtering proxy (Debian's HAProxy and squid in its own container) and
 * seals each of the profile's sandboxes on a network of its own whose only peer is that proxy.
 *
 *   sandbox ──(own internal network, no gateway address)── proxy ──(outside network)── internet
 *
 * The sandbox has no route out and no address of the host to reach; its DNS answers only the
 * proxy's name. The proxy lets through HTTP and HTTPS CONNECT to the allowlist's names and
 * ports, never to an IP literal or to this computer's or the LAN's addresses (policy/egress.ts).
 * Two proxies share the container and the list: HAProxy takes every request on the sandboxes'
 * ports and decides it by host and port; it passes an allowed HTTPS CONNECT to squid on the
 * container's loopback, which checks the client hello's SNI and splices (policy/egress.ts).
 * A changed allowlist is applied by squid's reconfigure and HAProxy's reload, and we wait until
 * both accept connections again, so the next request sees it. So is a change of this computer's
 * own addresses (LocalAddressWatch), which the proxies refuse besides the private ranges.
 */
import type { ChatGrant, NetworkRequest, ProfileSettings } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { Engine, PullProgress } from '../engine/dockerEngine.js';
import { EGRESS_IMAGE } from '../policy/egressImage.js';
import type { EventHub } from '../events.js';
import { APP_LABEL_VALUE, LABEL } from '../policy/containerSpec.js';
import { DEFAULT_SUBNET_POOL, type SubnetPool } from '../policy/subnets.js';
import {
  CHAT_ALLOW_FILE, HTTP_ALLOW_FILE, HTTP_READY_LINE, NEVER_FILES, PROXY_ALIAS, PROXY_LAYOUT, haproxyConf, httpAllowList, neverReachedFiles, parseHttpLog, parseSniLog, proxyCertCommand,
  proxyContainerName, sandboxNetworkName, SNI_MATCH_HELPER, sniHelperPath, squidAllowConf, squidConf, type ProxyLogLine, type SniVerdict,
} from '../policy/egress.js';
import { sandboxSshCommand, sshCheckHelper, sshHelperPath } from '../policy/egressSsh.js';
import { chatAllowList, squidEntries } from '../policy/egressGrants.js';
import { LocalAddressWatch } from './localAddressWatch.js';
import { ChatGrants, type GrantStore } from './chatGrants.js';
import { NetworkLog } from './networkLog.js';

export const OUTSIDE_NETWORK = 'berth-egress';
const ROLE_LABEL = 'berth.egress';
/** The proxy container's layout (PROXY_LAYOUT): one left by a Berth with another is replaced. */
const LAYOUT_LABEL = 'berth.egress.layout';
/** How long a CONNECT's line waits for squid's SNI verdict on it (both are logged as the tunnel closes). */
const SNI_WAIT_MS = 1000;
const CONF_DIR = '/tmp/berth';
/**
 * squid prints this once its (SNI check) port listens, after a start or a reconfigure. HAProxy prints
 * HTTP_READY_LINE. The proxy is ready once both have, since the start or the last change.
 */
const READY_LINE = /Accepting SSL bumped HTTP Socket connections/;
const HAPROXY_PID = '/tmp/haproxy.pid';
const READY_TIMEOUT_MS = 30_000;
/** The Debian image's squid user. */
const PROXY_USER = 'proxy';

export interface EgressOptions {
  image?: string;
  /** The network the proxies reach the outside through (tests: their pretend internet). */
  outsideNetwork?: string;
  /** DNS servers the proxies resolve names with; by default Docker's (the host's). */
  dns?: string[];
  /**
   * Where the sandboxes' sealed networks take their subnets from (policy/subnets.ts); an error
   * (a bad BERTH_EGRESS_POOL) fails each allowlist start with it rather than Berth's start.
   */
  subnetPool?: SubnetPool | BerthError;
  /** How often this computer's addresses are looked at again (LocalAddressWatch's REFRESH_MS). */
  localAddressRefreshMs?: number;
}

/** What the proxy reads from its configuration folder and Berth rewrites on a change. */
interface ProxyFiles {
  squid: string;
  http: string;
  squidNever: string;
  httpNever: string;
  /** Its chats' own allowances (CHAT_ALLOW_FILE). */
  chat: string;
}

interface Proxy {
  id: string;
  profile: string;
  /** The ProxyFiles it runs with, as JSON. */
  applied: string;
  /** The change being applied: the next waits for it (each reload waits for its own ready lines). */
  applying: Promise<void>;
  log: { stop(): void };
  /** Each waits for squid's and HAProxy's next ready lines. */
  readyWaiters: { squid: boolean; http: boolean; done: () => void }[];
  /** squid's SNI verdicts not yet matched to HAProxy's CONNECT line, by HAProxy's port to squid. */
  sniVerdicts: Map<number, { verdict: SniVerdict; at: number }>;
  /** HAProxy's CONNECT lines waiting for their verdict (the two programs log in either order). */
  sniPending: Map<number, { entry: ProxyLogLine; timer: NodeJS.Timeout }>;
}

export class EgressService {
  private readonly proxies = new Map<string, Promise<Proxy>>();
  /** The sandbox's address on its own network → its chat; the proxy's log names addresses. */
  private readonly clients = new Map<string, { chatId: string; profile: string }>();
  /** Each chat's Network view: its requests, allowed and refused (networkLog). */
  private readonly log: NetworkLog;
  private readonly image: string;
  private readonly outsideNetwork: string;
  private readonly dns: string[];
  private readonly subnetPool: SubnetPool | BerthError;
  private readonly localAddresses: LocalAddressWatch;
  private readonly grants: ChatGrants;
  /** Sandboxes started before their proxy was up: it joins their networks when it is. */
  private readonly waiting = new Set<string>();

  constructor(
    private readonly deps: {
      engine: Engine;
      instanceId: string;
      events: EventHub;
      settingsOf: (profile: string) => ProfileSettings | undefined;
      /** Makes the proxy image present (built on first use, with progress); absent: it must be there. */
      ensureImage?: (tag: string, onProgress: (p: PullProgress) => void) => Promise<void>;
      /** Where chats' own allowances are kept across restarts (absent: in memory only). */
      grantStore?: GrantStore;
      /**
       * Whether the proxy image is on the engine now. Given (the app), a sandbox whose proxy image is
       * still being made does not wait for it: it starts alone on its sealed network (no network at
       * all) and the proxy joins that network under its alias when it is up, so the sandbox's proxy
       * variables start to work without a restart. Absent: every sandbox waits for its proxy.
       */
      imageReady?: () => Promise<boolean>;
      /** The proxy joined the network of a sandbox that started before it (its header changes). */
      onProxyJoined?: (profile: string, key: string) => void;
    },
    options: EgressOptions = {},
  ) {
    this.image = options.image ?? EGRESS_IMAGE;
    this.outsideNetwork = options.outsideNetwork ?? OUTSIDE_NETWORK;
    this.dns = options.dns ?? [];
    this.subnetPool = options.subnetPool ?? DEFAULT_SUBNET_POOL;
    this.localAddresses = new LocalAddressWatch({
      engine: deps.engine,
      onChange: (addresses) => this.refreshAll(addresses),
      ...(options.localAddressRefreshMs ? { refreshMs: options.localAddressRefreshMs } : {}),
    });
    this.log = new NetworkLog(deps.events);
    this.grants = new ChatGrants({
      ...(deps.grantStore ? { store: deps.grantStore } : {}),
      changed: (profile, chatId) => {
        this.deps.events.emit('network.grants', { chatId, grants: this.grants.list(chatId) });
        this.allowlistChanged(profile).catch(() => undefined);
      },
    });
  }

  private labels(profile: string, role: string, extra: Record<string, string> = {}): Record<string, string> {
    return { [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: this.deps.instanceId, [LABEL.profile]: profile, [ROLE_LABEL]: role, ...extra };
  }

  /** The sandbox's own sealed network, with the profile's proxy on it; returns the network's name. */
  async prepareSandbox(profile: string, key: string, onProgress: (p: PullProgress) => void = () => undefined): Promise<string> {
    const network = sandboxNetworkName(this.deps.instanceId, key);
    if (this.subnetPool instanceof BerthError) throw this.subnetPool;
    const pool = this.subnetPool;
    if (this.deps.imageReady && !(await this.deps.imageReady())) {
      await this.deps.engine.ensureEgressNetwork(network, this.labels(profile, 'sandbox', { [LABEL.key]: key }), 'sealed', pool);
      this.waiting.add(key);
      void this.proxyFor(profile)
        .then(async (proxy) => {
          if (!this.waiting.has(key)) return;
          await this.deps.engine.connectNetwork(network, proxy.id, [PROXY_ALIAS]);
          this.waiting.delete(key);
          this.deps.onProxyJoined?.(profile, key);
        })
        .catch(() => undefined);
      return network;
    }
    const [proxy] = await Promise.all([
      this.proxyFor(profile, onProgress),
      this.deps.engine.ensureEgressNetwork(network, this.labels(profile, 'sandbox', { [LABEL.key]: key }), 'sealed', pool),
    ]);
    try {
      await this.deps.engine.connectNetwork(network, proxy.id, [PROXY_ALIAS]);
    } catch {
      // The proxy we knew is gone (removed by hand, Docker restarted): start it again, once.
      proxy.log.stop();
      if (this.proxies.get(profile)) this.proxies.delete(profile);
      await this.deps.engine.connectNetwork(network, (await this.proxyFor(profile)).id, [PROXY_ALIAS]);
    }
    return network;
  }

  /** Whether the key's sandbox runs without its proxy yet (no network until the proxy joins). */
  proxyPending(key: string): boolean {
    return this.waiting.has(key);
  }

  /** Maps the started sandbox's address to its chat, for the Network view. */
  async registerSandbox(profile: string, key: string, chatId: string, containerId: string): Promise<void> {
    const info = await this.deps.engine.inspectContainer(containerId);
    const ip = info?.addresses[sandboxNetworkName(this.deps.instanceId, key)];
    if (!ip) return;
    for (const [addr, c] of this.clients) if (c.chatId === chatId && addr !== ip) this.clients.delete(addr);
    this.clients.set(ip, { chatId, profile });
    // The chat's own allowances follow its sandbox's (new) address.
    if (this.grants.has(chatId)) await this.allowlistChanged(profile);
    // ssh through the proxy with no setup of the user's (policy/egressSsh.ts), written inside the
    // sandbox as its own user (''), so nothing of Berth's follows a link the sandbox made in its home.
    await this.deps.engine.execOnce(containerId, sandboxSshCommand(), '').catch(() => undefined);
  }

  /** After the sandbox's container is removed: its network goes too. */
  async releaseSandbox(key: string): Promise<void> {
    this.waiting.delete(key);
    const network = sandboxNetworkName(this.deps.instanceId, key);
    const proxies = await this.deps.engine.findContainers({ [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: this.deps.instanceId, [ROLE_LABEL]: 'proxy' });
    for (const c of proxies) await this.deps.engine.disconnectNetwork(network, c.id).catch(() => undefined);
    await this.deps.engine.removeNetwork(network);
  }

  private proxyFor(profile: string, onProgress: (p: PullProgress) => void = () => undefined): Promise<Proxy> {
    let p = this.proxies.get(profile);
    if (!p) {
      p = this.startProxy(profile, onProgress);
      this.proxies.set(profile, p);
      p.catch(() => {
        if (this.proxies.get(profile) === p) this.proxies.delete(profile);
        if (this.proxies.size === 0) this.localAddresses.stop();
      });
    }
    return p;
  }

  private async startProxy(profile: string, onProgress: (p: PullProgress) => void): Promise<Proxy> {
    const { engine } = this.deps;
    await this.deps.ensureImage?.(this.image, onProgress);
    await engine.ensureEgressNetwork(this.outsideNetwork, { [LABEL.app]: APP_LABEL_VALUE, [ROLE_LABEL]: 'outside' }, 'outside');
    const allow = this.proxyFiles(profile, await this.localAddresses.current());
    const { id, running } = await this.ensureProxyContainer(profile, allow);
    const proxy: Proxy = {
      id, profile, applied: running ? '' : allow, applying: Promise.resolve(), log: { stop: () => undefined }, readyWaiters: [], sniVerdicts: new Map(), sniPending: new Map(),
    };
    const ready = running ? Promise.resolve() : this.nextReady(proxy);
    // Awaited below; a start that fails first would leave it to time out unheard (an unhandled rejection).
    ready.catch(() => undefined);
    // A created container's log cannot be followed yet: start first, then read from its start.
    if (!running) await engine.startContainer(id);
    proxy.log = await engine.followLogs(id, !running, (line, stream) => this.onLog(proxy, line, stream));
    await ready;
    // A proxy left running by an earlier Berth may hold an older list.
    if (proxy.applied !== allow) await this.apply(proxy, allow);
    return proxy;
  }

  /**
   * The profile's allowlist as squid's include file and HAProxy's pattern file, and the addresses
   * never reached (this computer's among them) as theirs (one string: what was applied).
   */
  private proxyFiles(profile: string, local: readonly string[]): string {
    const entries = this.deps.settingsOf(profile)?.egressAllow ?? [];
    const never = neverReachedFiles(local);
    const grants = this.grants.forProfile(profile);
    const now = Date.now();
    const clients = [...this.clients].filter(([, c]) => c.profile === profile).map(([ip, c]) => ({ ip, chatId: c.chatId }));
    const files: ProxyFiles = {
      squid: squidAllowConf(squidEntries(entries, grants, now)), http: httpAllowList(entries), squidNever: never.squid, httpNever: never.http,
      chat: chatAllowList(grants, clients, now),
    };
    return JSON.stringify(files);
  }

  /** The profile's proxy container: the one left by an earlier start, or a new one (not started). */
  private async ensureProxyContainer(profile: string, allow: string): Promise<{ id: string; running: boolean }> {
    const files = JSON.parse(allow) as ProxyFiles;
    const { engine } = this.deps;
    const name = proxyContainerName(this.deps.instanceId, profile);
    for (let attempt = 0; ; attempt++) {
      const found = await engine.inspectContainer(name);
      // One made from another proxy image or layout (an earlier Berth's) lacks what this one runs: replaced.
      if (found && (found.image !== this.image || found.labels[LAYOUT_LABEL] !== PROXY_LAYOUT)) await engine.removeContainer(found.id);
      else if (found) return { id: found.id, running: found.running };
      try {
        const id = await engine.createServiceContainer({
          name,
          image: this.image,
          labels: this.labels(profile, 'proxy', { [LAYOUT_LABEL]: PROXY_LAYOUT }),
          user: PROXY_USER,
          // HAProxy (the sandboxes' ports) runs beside squid (the SNI check); its master process reloads on SIGUSR2.
          entrypoint: [
            '/bin/sh', '-c',
            `mkdir -p ${CONF_DIR} && ${proxyCertCommand(CONF_DIR)} && printf '%s' "$BERTH_SQUID_CONF" > ${CONF_DIR}/squid.conf && printf '%s' "$BERTH_ALLOW_CONF" > ${CONF_DIR}/allow.conf`
              + ` && printf '%s' "$BERTH_SNI_HELPER" > ${sniHelperPath(CONF_DIR)}`
              + ` && printf '%s' "$BERTH_HAPROXY_CONF" > ${CONF_DIR}/haproxy.cfg && printf '%s' "$BERTH_HTTP_ALLOW" > ${CONF_DIR}/${HTTP_ALLOW_FILE}`
              + ` && printf '%s' "$BERTH_SQUID_NEVER" > ${CONF_DIR}/${NEVER_FILES.squid} && printf '%s' "$BERTH_HTTP_NEVER" > ${CONF_DIR}/${NEVER_FILES.http}`
              + ` && printf '%s' "$BERTH_CHAT_ALLOW" > ${CONF_DIR}/${CHAT_ALLOW_FILE} && printf '%s' "$BERTH_SSH_HELPER" > ${sshHelperPath(CONF_DIR)}`
              + ` && { /usr/bin/perl ${sshHelperPath(CONF_DIR)} & }`
              + ` && { /usr/sbin/haproxy -W -db -p ${HAPROXY_PID} -f ${CONF_DIR}/haproxy.cfg & } && exec /usr/sbin/squid -N -f ${CONF_DIR}/squid.conf`,
          ],
          env: [`BERTH_SQUID_CONF=${squidConf(CONF_DIR)}`, `BERTH_ALLOW_CONF=${files.squid}`, `BERTH_HAPROXY_CONF=${haproxyConf(CONF_DIR, profile)}`, `BERTH_HTTP_ALLOW=${files.http}`, `BERTH_SNI_HELPER=${SNI_MATCH_HELPER}`,
            `BERTH_SQUID_NEVER=${files.squidNever}`, `BERTH_HTTP_NEVER=${files.httpNever}`, `BERTH_CHAT_ALLOW=${files.chat}`,
            `BERTH_SSH_HELPER=${sshCheckHelper(profile)}`],
          network: this.outsideNetwork,
          dns: this.dns,
          memoryMb: 512,
          pids: 256,
        });
        return { id, running: false };
      } catch (error) {
        // Another start made it between the look-up and the create: use that one.
        if (!(error instanceof BerthError && error.code === 'already_exists') || attempt > 0) throw error;
      }
    }
  }

  private nextReady(proxy: Proxy): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        proxy.readyWaiters = proxy.readyWaiters.filter((w) => w !== done);
        reject(new BerthError('network_failed', "Berth's egress proxy did not start listening.", {
          hint: `See its log (docker logs ${proxyContainerName(this.deps.instanceId, proxy.profile)}), or set the profile's egress to "none" or "open".`,
        }));
      }, READY_TIMEOUT_MS);
      const done = { squid: false, http: false, done: (): void => {
        clearTimeout(timer);
        resolve();
      } };
      proxy.readyWaiters.push(done);
    });
  }

  private onLog(proxy: Proxy, line: string, stream: 'stdout' | 'stderr'): void {
    const which = READY_LINE.test(line) ? 'squid' : HTTP_READY_LINE.test(line) ? 'http' : null;
    if (which) {
      for (const w of proxy.readyWaiters) w[which] = true;
      const ready = proxy.readyWaiters.filter((w) => w.squid && w.http);
      proxy.readyWaiters = proxy.readyWaiters.filter((w) => !(w.squid && w.http));
      for (const w of ready) w.done();
      return;
    }
    if (stream === 'stderr') return;
    const sni = parseSniLog(line);
    if (sni) {
      const pending = proxy.sniPending.get(sni.port);
      if (pending) {
        clearTimeout(pending.timer);
        proxy.sniPending.delete(sni.port);
        this.record(pending.entry, sni);
        return;
      }
      proxy.sniVerdicts.set(sni.port, { verdict: sni, at: Date.now() });
      if (proxy.sniVerdicts.size > 1000) proxy.sniVerdicts.delete(proxy.sniVerdicts.keys().next().value as number);
      return;
    }
    const entry = parseHttpLog(line);
    if (!entry) return;
    const port = entry.sniCheckPort;
    if (port === undefined) return this.record(entry, null);
    const known = proxy.sniVerdicts.get(port);
    proxy.sniVerdicts.delete(port);
    // A verdict from long ago belongs to an earlier connection from the same port.
    if (known && Date.now() - known.at < 3000) return this.record(entry, known.verdict);
    proxy.sniPending.get(port)?.timer.refresh();
    const timer = setTimeout(() => {
      proxy.sniPending.delete(port);
      this.record(entry, null);
    }, SNI_WAIT_MS);
    timer.unref?.();
    proxy.sniPending.set(port, { entry, timer });
  }

  /** One request in its chat's Network view; `sni`: squid's verdict on its client hello (CONNECT). */
  private record(entry: ProxyLogLine, sni: SniVerdict | null): void {
    // A CONNECT to an allowed host whose client hello named another: that name was refused.
    const refusedName = sni?.refused ? sni.sni : undefined;
    const client = this.clients.get(entry.client);
    if (!client) return;
    const request: NetworkRequest = {
      chatId: client.chatId, time: entry.time, method: entry.method, port: entry.port,
      host: refusedName ?? entry.host,
      allowed: entry.allowed && !sni?.refused, bytesIn: entry.bytesIn, bytesOut: entry.bytesOut,
      ...(entry.reason ? { reason: entry.reason } : {}),
    };
    this.log.add(request);
  }

  /**
   * Rewrites the proxy's files and reloads both programs (HAProxy's old worker finishes the
   * connections it has; squid's reconfigure keeps its tunnels), after any change still being applied.
   */
  private apply(proxy: Proxy, allow: string): Promise<void> {
    const run = proxy.applying.catch(() => undefined).then(() => (allow === proxy.applied ? undefined : this.applyNow(proxy, allow)));
    proxy.applying = run;
    return run;
  }

  private async applyNow(proxy: Proxy, allow: string): Promise<void> {
    const ready = this.nextReady(proxy);
    // Awaited below; an exec that throws first would leave it to time out unheard.
    ready.catch(() => undefined);
    const files = JSON.parse(allow) as ProxyFiles;
    const { exitCode, output } = await this.deps.engine.execOnce(proxy.id, [
      '/bin/sh', '-c',
      `put() { printf '%s' "$2" > "${CONF_DIR}/$1.new" && mv "${CONF_DIR}/$1.new" "${CONF_DIR}/$1"; }`
        + ` && put allow.conf "$1" && put ${HTTP_ALLOW_FILE} "$2" && put ${NEVER_FILES.squid} "$3" && put ${NEVER_FILES.http} "$4" && put ${CHAT_ALLOW_FILE} "$5"`
        + ` && kill -USR2 "$(cat ${HAPROXY_PID})" && exec /usr/sbin/squid -k reconfigure -f ${CONF_DIR}/squid.conf`,
      'sh', files.squid, files.http, files.squidNever, files.httpNever, files.chat,
    ], PROXY_USER);
    if (exitCode !== 0) {
      ready.catch(() => undefined);
      throw new BerthError('network_failed', `Berth could not apply the allowlist to the egress proxy: ${output.trim()}`, {
        hint: 'Try again; if it keeps failing, restart Berth.',
      });
    }
    await ready;
    proxy.applied = allow;
  }

  /** Applies the profile's current allowlist to its running proxy (no sandbox restarts). */
  async allowlistChanged(profile: string): Promise<void> {
    const p = this.proxies.get(profile);
    if (!p) return;
    const proxy = await p;
    await this.apply(proxy, this.proxyFiles(profile, await this.localAddresses.current()));
  }

  /**
   * This computer's addresses changed: every running proxy refuses the new list. False when one
   * did not take it (it keeps refusing the older list): the watch offers the list again.
   */
  private async refreshAll(local: readonly string[]): Promise<boolean> {
    let all = true;
    for (const p of [...this.proxies.values()]) {
      const proxy = await p.catch(() => null);
      if (proxy) all = (await this.apply(proxy, this.proxyFiles(proxy.profile, local)).then(() => true, () => false)) && all;
    }
    return all;
  }

  requests(chatId: string): NetworkRequest[] {
    return this.log.requests(chatId);
  }

  /** Refused requests of a chat since a time, as a note for the agent's tool result (NetworkLog.refusalNote). */
  refusalNote(chatId: string, profile: string, since: number, output: string): Promise<string | null> {
    return this.log.refusalNote(chatId, profile, since, output);
  }

  /** The chat's own allowances in force. */
  chatGrants(chatId: string): ChatGrant[] {
    return this.grants.list(chatId);
  }

  /** Allows `entry` for the chat alone ("once": 10 minutes); applied before this returns, so the next request passes. */
  async grant(chatId: string, profile: string, entry: string, scope: 'once' | 'chat'): Promise<ChatGrant[]> {
    const list = this.grants.add(chatId, profile, entry, scope);
    await this.allowlistChanged(profile);
    this.deps.events.emit('network.grants', { chatId, grants: list });
    return list;
  }

  /** Ends the chat's allowance of `entry`; applied before this returns. */
  async revoke(chatId: string, profile: string, entry: string): Promise<ChatGrant[]> {
    if (this.grants.revoke(chatId, entry)) await this.allowlistChanged(profile);
    const list = this.grants.list(chatId);
    this.deps.events.emit('network.grants', { chatId, grants: list });
    return list;
  }

  /** The chat is gone: its log, its address and its own allowances with it. */
  async forgetChat(chatId: string): Promise<void> {
    this.log.forget(chatId);
    for (const [ip, c] of this.clients) if (c.chatId === chatId) this.clients.delete(ip);
    const profile = this.grants.forgetChat(chatId);
    if (profile !== null) await this.allowlistChanged(profile);
  }

  /** Removes the profile's proxy (profile deleted, or no sandbox of it needs one). */
  async removeProxy(profile: string): Promise<void> {
    const p = this.proxies.get(profile);
    this.proxies.delete(profile);
    if (this.proxies.size === 0) this.localAddresses.stop();
    const proxy = await p?.catch(() => null);
    proxy?.log.stop();
    for (const pending of proxy?.sniPending.values() ?? []) clearTimeout(pending.timer);
    for (const c of await this.deps.engine.findContainers(this.labels(profile, 'proxy'))) await this.deps.engine.removeContainer(c.id).catch(() => undefined);
  }

  /**
   * Quitting: the proxies hold no state, so they go; sandbox networks stay with their
   * containers. The outside network goes too when Berth made it and no other Berth uses it.
   */
  async dispose(): Promise<void> {
    this.localAddresses.stop();
    this.grants.dispose();
    await Promise.all([...this.proxies.keys()].map((profile) => this.removeProxy(profile)));
    const ours = await this.deps.engine.findNetworks({ [LABEL.app]: APP_LABEL_VALUE, [ROLE_LABEL]: 'outside' }).catch(() => []);
    for (const n of ours) if (n.name === this.outsideNetwork) await this.deps.engine.removeNetwork(n.name).catch(() => undefined);
  }

  /** This instance's sandbox networks whose key no longer has a container (after reaping). */
  async sweepNetworks(liveKeys: ReadonlySet<string>): Promise<void> {
    const nets = await this.deps.engine.findNetworks({ [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: this.deps.instanceId, [ROLE_LABEL]: 'sandbox' });
    for (const n of nets) {
      const key = n.labels[LABEL.key];
      if (key && !liveKeys.has(key)) await this.releaseSandbox(key).catch(() => undefined);
    }
  }
}

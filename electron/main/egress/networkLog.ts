/**
 * Each chat's Network view: the requests its sandbox made through the profile's proxy, allowed
 * and refused, the last NETWORK_LOG_LIMIT per chat, each announced as `network.request`.
 */
import type { NetworkRequest } from '../../../shared/contract.js';
import { NETWORK_LOG_LIMIT } from '../../../shared/egress.js';
import type { EventHub } from '../events.js';
import { refusedNote } from '../policy/egressRefusal.js';

/** How long an agent's tool result waits for the proxy's line of a refusal its output shows (the log follower can trail under load). */
const REFUSAL_LINE_WAIT_MS = 2000;

export class NetworkLog {
  private readonly logs = new Map<string, NetworkRequest[]>();
  /** When each line reached Berth (Date.now()), for refusalNote. */
  private readonly recordedAt = new WeakMap<NetworkRequest, number>();

  constructor(private readonly events: EventHub) {}

  add(request: NetworkRequest): void {
    const list = this.logs.get(request.chatId) ?? [];
    this.recordedAt.set(request, Date.now());
    list.push(request);
    if (list.length > NETWORK_LOG_LIMIT) list.splice(0, list.length - NETWORK_LOG_LIMIT);
    this.logs.set(request.chatId, list);
    this.events.emit('network.request', request);
  }

  requests(chatId: string): NetworkRequest[] {
    return [...(this.logs.get(chatId) ?? [])];
  }

  forget(chatId: string): void {
    this.logs.delete(chatId);
  }

  /**
   * Refused requests of a chat since a time (this computer's clock), as a note for the agent's
   * tool result: lines recorded since then whose own time (HAProxy's accept date: the engine's
   * clock, a VM's where Docker runs in one, hence a second's slack) is not older. A line recorded
   * before the command began is never its own: a refusal just before (the user's command, say)
   * would be named as this one's and, being in already, would stop the wait below. The proxy's
   * line can trail the command's own error: when the output looks like a proxy refusal (403 from
   * the proxy) and no line is in yet, wait for it, at most REFUSAL_LINE_WAIT_MS.
   */
  async refusalNote(chatId: string, profile: string, since: number, output: string): Promise<string | null> {
    const refused = () => (this.logs.get(chatId) ?? []).filter((r) => !r.allowed && (this.recordedAt.get(r) ?? 0) >= since && r.time >= since - 1000);
    if (refused().length === 0 && /\b403\b|tunnel failed|ERR_ACCESS_DENIED|ssl|tls|handshake|unexpected eof/i.test(output)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => done(), REFUSAL_LINE_WAIT_MS);
        const off = this.events.on((event, payload) => {
          if (event === 'network.request' && (payload as NetworkRequest).chatId === chatId && !(payload as NetworkRequest).allowed) done();
        });
        function done(): void {
          clearTimeout(timer);
          off.dispose();
          resolve();
        }
      });
    }
    const list = refused();
    return list.length ? refusedNote(list, profile) : null;
  }
}

/**
 * Chats' own allowances (policy/egressGrants.ts), kept across restarts in the settings store and
 * ended when an "Allow once" runs out: each change names the profile whose proxy must be rewritten.
 */
import { ALLOW_ONCE_MS, type ChatGrant } from '../../../shared/egress.js';
import { grantsOf, nextExpiry, activeGrants, withGrant, type HeldGrant } from '../policy/egressGrants.js';

export interface GrantStore {
  load(): string | undefined;
  save(json: string): void;
}

export class ChatGrants {
  private grants: HeldGrant[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      store?: GrantStore;
      now?: () => number;
      /** The profile's proxy must take the grants again; the chat's list changed. */
      changed(profile: string, chatId: string): void;
    },
  ) {
    try {
      const saved = JSON.parse(deps.store?.load() ?? '[]') as HeldGrant[];
      this.grants = activeGrants(Array.isArray(saved) ? saved : [], this.now());
    } catch {
      // A damaged record allows nothing more: the profile's lists stay as they are.
      this.grants = [];
    }
    this.schedule();
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** The profile's allowances in force (its proxy's files). */
  forProfile(profile: string): HeldGrant[] {
    return activeGrants(this.grants, this.now()).filter((g) => g.profile === profile);
  }

  list(chatId: string): ChatGrant[] {
    return grantsOf(this.grants, chatId, this.now());
  }

  has(chatId: string): boolean {
    return this.list(chatId).length > 0;
  }

  add(chatId: string, profile: string, entry: string, scope: 'once' | 'chat'): ChatGrant[] {
    const expiresAt = scope === 'once' ? this.now() + ALLOW_ONCE_MS : null;
    this.update(withGrant(this.grants, { chatId, profile, entry, scope, expiresAt }));
    return this.list(chatId);
  }

  /** True when the chat had that allowance. */
  revoke(chatId: string, entry: string): boolean {
    const before = this.grants.length;
    this.update(this.grants.filter((g) => !(g.chatId === chatId && g.entry === entry)));
    return this.grants.length !== before;
  }

  /** The chat is gone: so are its allowances. Returns its profile when it had any. */
  forgetChat(chatId: string): string | null {
    const profile = this.grants.find((g) => g.chatId === chatId)?.profile ?? null;
    if (profile !== null) this.update(this.grants.filter((g) => g.chatId !== chatId));
    return profile;
  }

  private update(next: HeldGrant[]): void {
    this.grants = activeGrants(next, this.now());
    this.deps.store?.save(JSON.stringify(this.grants));
    this.schedule();
  }

  /** At the next "Allow once"'s end, its profile's proxy is rewritten without it. */
  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const at = nextExpiry(this.grants, this.now());
    if (at === null) return;
    this.timer = setTimeout(() => {
      const ended = this.grants.filter((g) => g.expiresAt !== null && g.expiresAt <= this.now());
      this.update(this.grants);
      for (const g of ended) this.deps.changed(g.profile, g.chatId);
    }, Math.max(0, at - this.now()) + 5);
    this.timer.unref?.();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

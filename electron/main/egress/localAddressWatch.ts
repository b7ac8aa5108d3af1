/**
 * Keeps the list of this computer's own addresses (policy/localAddresses.ts) current for the
 * egress proxies, which run in a container and cannot see the host's interfaces: its interfaces
 * (os.networkInterfaces()) and every Docker network's gateway (the Engine API), read when the
 * first proxy starts and again every REFRESH_MS while one runs. The proxies' egress service
 * rewrites their never-reached lists when it changes.
 *
 * The engine the proxies run on is this computer's (policy/egress.ts refuses the allowlist on a
 * remote one), so "this computer" is the proxies' host.
 */
import os from 'node:os';
import type { Engine } from '../engine/dockerEngine.js';
import { localAddresses, type InterfaceAddress } from '../policy/localAddresses.js';

/**
 * Node has no event for interface changes, so they are polled; Docker network changes show up
 * the same way (a new bridge's gateway). Each look is one getifaddrs() and one network listing
 * (a few ms of the engine's time), and it runs only while a proxy does. A new address is refused
 * within this time.
 */
export const REFRESH_MS = 2000;

export class LocalAddressWatch {
  private list: string[] | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<string[]> | null = null;
  private refreshing = false;

  constructor(
    private readonly deps: {
      engine: Engine;
      /**
       * Called with the new list whenever it differs from the last one taken; false (a proxy did
       * not take it) has it offered again at the next look.
       */
      onChange: (addresses: string[]) => Promise<boolean>;
      interfaces?: () => Record<string, readonly InterfaceAddress[] | undefined>;
      refreshMs?: number;
    },
  ) {}

  /** The current list (read now if never read), and from now on kept current. */
  async current(): Promise<string[]> {
    if (!this.list) this.list = await this.read();
    if (!this.timer) {
      this.timer = setInterval(() => void this.refresh(), this.deps.refreshMs ?? REFRESH_MS);
      this.timer.unref?.();
    }
    return this.list;
  }

  /** No proxy runs: no more looks, and the next current() reads afresh. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.list = null;
  }

  private read(): Promise<string[]> {
    this.reading ??= (async () => {
      try {
        const networks = await this.deps.engine.findNetworks({});
        return localAddresses((this.deps.interfaces ?? os.networkInterfaces)(), networks);
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  private async refresh(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      // Docker unreachable for a moment: the last list stays (the proxies keep refusing it).
      const next = await this.read().catch(() => null);
      if (!next || !this.timer || (this.list && next.join(' ') === this.list.join(' '))) return;
      const before = this.list;
      this.list = next;
      if (!(await this.deps.onChange(next)) && this.list === next) this.list = before;
    } finally {
      this.refreshing = false;
    }
  }
}

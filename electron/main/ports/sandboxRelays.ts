/**
 * Each sandbox's one relay (muxRelay.ts), started at its forwards' first connection and kept
 * while the sandbox has forwards; a relay that ended (killed in the sandbox, the engine
 * restarted) is started again at the next connection.
 */
import type { Engine } from '../engine/dockerEngine.js';
import { muxCommand, type MuxTool } from './common/muxPrograms.js';
import { MuxRelay } from './muxRelay.js';
import type { RelayTarget } from './relay.js';

export interface RelaySandbox {
  id: string;
  user: string;
  engine: Engine;
}

export class SandboxRelays {
  private readonly relays = new Map<string, Promise<MuxRelay>>();

  /** Connections to address:port in the sandbox, each a channel of its relay. */
  target(sandbox: RelaySandbox, tool: MuxTool, address: string, port: number): RelayTarget {
    return { open: async () => (await this.relay(sandbox, tool)).open(address, port) };
  }

  /** The sandbox has no forward left (or stopped): its relay ends. */
  release(containerId: string): void {
    const relay = this.relays.get(containerId);
    this.relays.delete(containerId);
    void relay?.then((r) => r.close(), () => undefined);
  }

  closeAll(): void {
    for (const id of [...this.relays.keys()]) this.release(id);
  }

  private async relay(sandbox: RelaySandbox, tool: MuxTool): Promise<MuxRelay> {
    const running = this.relays.get(sandbox.id);
    if (running) {
      const relay = await running.catch(() => null);
      if (relay && relay.ended === null) return relay;
      if (this.relays.get(sandbox.id) === running) this.relays.delete(sandbox.id);
      return this.relay(sandbox, tool);
    }
    const starting = MuxRelay.start(sandbox.engine, sandbox.id, sandbox.user, muxCommand(tool));
    this.relays.set(sandbox.id, starting);
    return starting;
  }
}

/**
 * Ports (README: Ports): what each chat's sandbox listens on, read inside it, and the forwards
 * that open one in the user's browser through the Engine API (forwardServer.ts). A forward ends
 * when the user closes it, the sandbox stops or the chat is deleted; one open when Berth quit
 * comes back when the chat's sandbox still listens on its port (same address, same secret).
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { ListeningPortView, PortForward } from '../../../shared/ports.js';
import { BerthError } from '../../../shared/errors.js';
import type { Engine } from '../engine/dockerEngine.js';
import { BUSYBOX_CANDIDATES, engineArch, isStaticElf } from '../policy/baseImage.js';
import {
  chooseRelayTool,
  helperArchive,
  LIST_PORTS_COMMAND,
  parseListeningPorts,
  PROBE_RELAY_COMMAND,
  relayCommand,
  type ListeningPort,
  type RelayTool,
} from './common/listeningPorts.js';
import { chooseMuxTool, type MuxTool } from './common/muxPrograms.js';
import { ForwardServer } from './forwardServer.js';
import { execTarget, type RelayConnection } from './relay.js';
import { SandboxRelays } from './sandboxRelays.js';

export interface PortContainer {
  key: string;
  id: string;
  user: string;
  engine: Engine;
}

export interface PortServiceDeps {
  /** The chat's running container, or null when none runs (never starts one). */
  container(chatId: string): Promise<PortContainer | null>;
  /** Hears that a key's container stops or goes away. */
  /** The sandboxes' containers, whose going ends their forwards (SandboxContainers, subscribed to, never called up). */
  containers: { onGone(listener: (key: string) => void): () => void };
  /** Where open forwards are kept across restarts of Berth (a settings value). */
  saved: { get(): string | undefined; set(value: string): void };
  /** Static busybox candidates on this computer (tests: their own). */
  busyboxCandidates?: readonly string[];
}

interface Forward {
  chatId: string;
  key: string;
  containerId: string;
  port: number;
  server: ForwardServer;
}

/** A relay exec per connection (`each`), and the interpreter for one relay per sandbox when the image has one. */
interface RelayTools {
  each: RelayTool;
  mux: MuxTool | null;
}

interface SavedForward {
  chatId: string;
  port: number;
  hostPort: number;
  secret: string;
}

export class PortService {
  private readonly forwards = new Map<string, Forward>();
  /** Per container: the relay tools it has (or got), found once. */
  private readonly tools = new Map<string, Promise<RelayTools>>();
  private readonly relays = new SandboxRelays();
  /** Per chat: the ports its sandbox listened on when the agent's last command ended. */
  private readonly agentSeen = new Map<string, Set<number>>();
  private readonly stopGone: () => void;
  private disposing = false;

  constructor(private readonly deps: PortServiceDeps) {
    this.stopGone = deps.containers.onGone((key) => {
      if (this.disposing) return;
      for (const f of [...this.forwards.values()]) if (f.key === key) void this.end(f);
    });
  }

  async list(chatId: string): Promise<{ running: boolean; ports: ListeningPortView[] }> {
    const c = await this.deps.container(chatId);
    if (!c) return { running: false, ports: [] };
    const listening = await this.listening(c);
    await this.restore(chatId, c, listening);
    const ports = new Map<number, ListeningPortView>(listening.map((l) => [l.port, { port: l.port, forward: null }]));
    for (const f of this.forwards.values()) if (f.chatId === chatId) ports.set(f.port, { port: f.port, forward: view(f) });
    return { running: true, ports: [...ports.values()].sort((a, b) => a.port - b.port) };
  }

  async open(chatId: string, port: number): Promise<PortForward> {
    const existing = this.forwards.get(id(chatId, port));
    if (existing) return view(existing);
    const c = await this.deps.container(chatId);
    if (!c) throw new BerthError('invalid_request', `The chat's sandbox is not running, so nothing listens on port ${port}.`, { hint: 'Start the server in the chat (a command or a terminal), then open its port.' });
    const listening = (await this.listening(c)).find((l) => l.port === port);
    if (!listening) throw new BerthError('invalid_request', `Nothing listens on port ${port} in the chat's sandbox.`, { hint: 'Start the server first, then open its port.' });
    return view(await this.start(chatId, c, listening));
  }

  async close(chatId: string, port: number): Promise<{ closed: boolean }> {
    const f = this.forwards.get(id(chatId, port));
    if (!f) return { closed: false };
    await this.end(f);
    return { closed: true };
  }

  /** The chat is being deleted: its forwards end (a shared container outlives it). */
  async closeChat(chatId: string): Promise<void> {
    await Promise.all([...this.forwards.values()].filter((f) => f.chatId === chatId).map((f) => this.end(f)));
    this.save(this.savedList().filter((s) => s.chatId !== chatId));
    this.agentSeen.delete(chatId);
  }

  /** For the agent's terminal tool: the ports its sandbox began listening on since the last time asked, in words; null when none. */
  /**
   * `read`: the listing read through the chat's own shell, which answers in milliseconds where
   * a docker exec of its own (plus the container lookup) took about as long as the agent's
   * command itself (npm run bench:agent).
   */
  async newPortsNote(chatId: string, read?: () => Promise<string>): Promise<string | null> {
    let listed: ListeningPort[];
    if (read) listed = parseListeningPorts(await read());
    else {
      const c = await this.deps.container(chatId);
      if (!c) return null;
      listed = await this.listening(c);
    }
    const now = listed.map((l) => l.port);
    const before = this.agentSeen.get(chatId) ?? new Set<number>();
    this.agentSeen.set(chatId, new Set(now));
    const fresh = now.filter((p) => !before.has(p));
    if (fresh.length === 0) return null;
    const which = fresh.length === 1 ? `port ${fresh[0]}` : `ports ${fresh.join(', ')}`;
    return `[The sandbox now listens on ${which}. The user can open it in their browser from the chat's Ports section (Open in browser), forwarded by Berth to 127.0.0.1 on their computer; tell them so if they asked to see it.]`;
  }

  /** Open forwards at Berth's start whose chat's sandbox still runs and listens on the port. */
  async restoreAll(): Promise<void> {
    for (const chatId of new Set(this.savedList().map((s) => s.chatId))) {
      await this.list(chatId).catch((error: unknown) => {
        // A chat that is gone keeps no forward; an engine that does not answer may later.
        if (error instanceof BerthError && error.code === 'not_found') this.save(this.savedList().filter((s) => s.chatId !== chatId));
      });
    }
  }

  /** Quitting: forwards close, but stay saved so the next start opens them again. */
  async dispose(): Promise<void> {
    this.disposing = true;
    this.stopGone();
    await Promise.all([...this.forwards.values()].map((f) => f.server.close()));
    this.forwards.clear();
    this.relays.closeAll();
  }

  private async listening(c: PortContainer): Promise<ListeningPort[]> {
    const answer = await c.engine.execOnce(c.id, LIST_PORTS_COMMAND, c.user);
    return parseListeningPorts(answer.output);
  }

  private async restore(chatId: string, c: PortContainer, listening: ListeningPort[]): Promise<void> {
    for (const s of this.savedList().filter((x) => x.chatId === chatId && !this.forwards.has(id(chatId, x.port)))) {
      const l = listening.find((p) => p.port === s.port);
      if (l) await this.start(chatId, c, l, s).catch(() => undefined);
    }
  }

  private async start(chatId: string, c: PortContainer, l: ListeningPort, again?: SavedForward): Promise<Forward> {
    const tools = await this.relayTool(c);
    const cmd = relayCommand(tools.each, l.connectTo, l.port);
    // One relay for all the sandbox's connections where the image has an interpreter for it; a relay exec per connection otherwise.
    const target = tools.mux ? this.relays.target(c, tools.mux, l.connectTo, l.port) : execTarget(c.engine, c.id, c.user, cmd);
    const server = await ForwardServer.start({
      port: l.port,
      target: () => target,
      ...(again ? { hostPort: again.hostPort, secret: again.secret } : {}),
    });
    const raced = this.forwards.get(id(chatId, l.port));
    if (raced) {
      await server.close();
      return raced;
    }
    const f: Forward = { chatId, key: c.key, containerId: c.id, port: l.port, server };
    this.forwards.set(id(chatId, l.port), f);
    this.save([...this.savedList().filter((s) => !(s.chatId === chatId && s.port === l.port)), { chatId, port: l.port, hostPort: server.hostPort, secret: server.secret }]);
    return f;
  }

  private async end(f: Forward): Promise<void> {
    if (this.forwards.get(id(f.chatId, f.port)) !== f) return;
    this.forwards.delete(id(f.chatId, f.port));
    this.save(this.savedList().filter((s) => !(s.chatId === f.chatId && s.port === f.port)));
    await f.server.close();
    if (![...this.forwards.values()].some((other) => other.containerId === f.containerId)) this.relays.release(f.containerId);
  }

  /**
   * A TCP connection opened inside the container, as its user, to host:port (the relay a forward
   * uses, pointed elsewhere): the sandbox's network rules decide where it may go. The agent's
   * HTTP MCP servers are reached this way (agent/mcp/sandboxFetch).
   */
  async connectFrom(c: PortContainer, host: string, port: number): Promise<RelayConnection> {
    // An exec per connection, not a channel of the sandbox's relay: that relay lives as long as
    // the chat's forwards do, and these few kept-alive connections are not forwards.
    return execTarget(c.engine, c.id, c.user, relayCommand((await this.relayTool(c)).each, host, port)).open();
  }

  private relayTool(c: PortContainer): Promise<RelayTools> {
    let found = this.tools.get(c.id);
    if (!found) {
      found = this.findRelayTool(c);
      this.tools.set(c.id, found);
      found.catch(() => this.tools.delete(c.id));
    }
    return found;
  }

  private async findRelayTool(c: PortContainer): Promise<RelayTools> {
    const probe = await c.engine.execOnce(c.id, PROBE_RELAY_COMMAND, c.user);
    const tool = chooseRelayTool(probe.output);
    if (tool) return { each: tool, mux: chooseMuxTool(probe.output) };
    // None of them in the image: Berth's own static busybox, root's and read-only (0555), run as the sandbox user.
    const binary = await this.staticBusybox(c.engine);
    if (!binary) {
      throw new BerthError('invalid_request', 'This sandbox has no tool Berth can relay a port with (busybox nc, python3 or bash), and Berth has no helper that runs on its engine.', {
        hint: 'Use an image with busybox, python3 or bash, or install busybox-static on this computer when Docker runs here.',
      });
    }
    await c.engine.putArchive(c.id, '/', Readable.from([helperArchive(binary, Math.floor(Date.now() / 1000))]));
    return { each: 'helper', mux: null };
  }

  private async staticBusybox(engine: Engine): Promise<Buffer | null> {
    if (process.platform !== 'linux') return null;
    const { os, arch } = await engine.platform();
    if (os !== 'linux' || arch !== engineArch(process.arch)) return null;
    for (const candidate of this.deps.busyboxCandidates ?? BUSYBOX_CANDIDATES) {
      try {
        const binary = fs.readFileSync(candidate);
        if (isStaticElf(binary, process.arch)) return binary;
      } catch {
        // not there: try the next
      }
    }
    return null;
  }

  private savedList(): SavedForward[] {
    try {
      const parsed = JSON.parse(this.deps.saved.get() ?? '[]') as unknown;
      return Array.isArray(parsed) ? (parsed as SavedForward[]) : [];
    } catch {
      return [];
    }
  }

  private save(list: SavedForward[]): void {
    if (!this.disposing) this.deps.saved.set(JSON.stringify(list));
  }
}

function id(chatId: string, port: number): string {
  return `${chatId}\n${port}`;
}

function view(f: Forward): PortForward {
  return { port: f.port, url: f.server.url, hostPort: f.server.hostPort };
}

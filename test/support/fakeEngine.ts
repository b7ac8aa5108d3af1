/**
 * An in-memory Docker engine behind the real `Engine` interface, for fast unit tests of the
 * services above engine/. It keeps what the engine keeps (images, networks, containers and
 * their labels, running state) and answers as DockerEngine does, errors included (the same
 * BerthError codes), and its containers' shells speak Berth's shell protocol
 * (policy/shellProtocol) for a small command language: echo, cd, pwd, exit, true/false, mkdir,
 * sleep, `;` and `&&`. test/integration/engineContract.test.ts runs the same cases against it
 * and the real engine, so it cannot drift.
 */
import type { EnvironmentImageOps } from '../../electron/main/engine/environmentImages.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { Duplex, PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tarFs from 'tar-fs';
import { BerthError } from '../../shared/errors.js';
import type {
  AttachedStreams,
  ContainerDetails,
  ContainerSummary,
  Engine,
  NetworkSummary,
  ServiceContainerSpec,
  PullProgress,
  BuildRequest,
  EngineKind,
  StatsSample,
  StatsStream,
  TtyOptions,
  TtyProcess,
} from '../../electron/main/engine/dockerEngine.js';
import type { ContainerCreateBody } from '../../electron/main/policy/containerSpec.js';
import { SHELL_STATE_DIR } from '../../electron/main/policy/shellProtocol.js';
import { pickSubnet, poolCapacity, type SubnetPool } from '../../electron/main/policy/subnets.js';

interface FakeNetwork {
  isolated: boolean;
  /** Internal with no gateway address (ensureEgressNetwork 'sealed'). */
  sealed?: boolean;
  labels: Record<string, string>;
  /** Its IPv4 subnet, when it was given one (a sealed network from a pool; a foreign one). */
  subnet?: string;
}

interface FakeContainer {
  id: string;
  name: string;
  body: ContainerCreateBody;
  running: boolean;
  /** Folders that exist in the container (mount targets, home, what `mkdir` made). */
  dirs: Set<string>;
  /** Commands running now, by the serial the shell recorded, so a kill script can end them. */
  running_commands: Map<number, (rc: number) => void>;
  /** Shells attached to the container: they end when it stops. */
  attached: Set<() => void>;
  /** Its address on each network it has joined (given on start, or on connect). */
  addresses: Map<string, string>;
  /** What it printed, and who follows its log. */
  log: { line: string; stream: 'stdout' | 'stderr' }[];
  followers: Set<(line: string, stream: 'stdout' | 'stderr') => void>;
  /** Made by createServiceContainer: on start it runs its entrypoint script and prints what it says. */
  service?: boolean;
}

export interface CommandResult {
  output: string;
  exitCode: number;
}

/** What a test may put in front of the command language (null: run it as usual). */
export type CommandHook = (command: string, containerId: string) => Promise<CommandResult> | CommandResult | null;

function notFound(what: string): BerthError {
  return new BerthError('container_failed', `Docker could not ${what}: No such container`, { hint: 'Check that Docker is healthy (docker info) and try again.' });
}

export class FakeEngine implements Engine {
  readonly endpointLabel = 'fake://engine';
  readonly images = new Set<string>();
  /** Images a pull can find (a registry's contents). */
  readonly registry = new Set<string>();
  readonly networks = new Map<string, FakeNetwork>();
  readonly containers = new Map<string, FakeContainer>();
  /** While set, every call fails as DockerEngine's do when the engine does not answer. */
  down = false;
  /** Every call by method name, in order (for tests of how often the engine was asked). */
  readonly calls: string[] = [];
  hook: CommandHook | null = null;
  /** What the stats stream reads while set (a sandbox under load), instead of its idle figures. */
  load: { memoryBytes?: number; pids?: number } | null = null;
  /** Stats streams open now. */
  statsStreams = 0;
  /** What the engine's machine has (docker info). */
  machine = { cpus: 8, memoryBytes: 16 * 1024 ** 3 };

  /** Volumes by name: a folder on disk each, so archives in and out are real tar streams. */
  readonly volumes = new Map<string, { labels: Record<string, string>; dir: string }>();

  constructor(images: Iterable<string> = []) {
    for (const i of images) this.images.add(i);
  }

  private enter(method: string): void {
    this.calls.push(method);
    if (this.down) {
      throw new BerthError('engine_unreachable', `The Docker engine at ${this.endpointLabel} cannot be reached: nothing answered.`, {
        hint: 'Start Docker (Docker Desktop, Colima, or the docker service) and try again; Berth reconnects by itself.',
      });
    }
  }

  private container(idOrName: string): FakeContainer | undefined {
    return this.containers.get(idOrName) ?? [...this.containers.values()].find((c) => c.name === idOrName || c.id.startsWith(idOrName));
  }

  async ping(): Promise<{ version: string; apiVersion: string }> {
    this.enter('ping');
    return { version: 'fake', apiVersion: '1.41' };
  }

  /** Nothing is kept open in memory; calls keep working, as on a real engine that connects again. */
  close(): void {}

  /** The engine the fake stands in for: Docker, as the real engine the contract test compares it with. */
  async kind(): Promise<EngineKind> {
    this.enter('kind');
    return { name: 'docker' };
  }

  /** What `docker info` reports as SecurityOptions; the seccomp default of a Linux engine. */
  securityOpts: string[] = ['name=seccomp,profile=default'];

  async resources(): Promise<{ cpus: number; memoryBytes: number }> {
    this.enter('resources');
    return { ...this.machine };
  }

  async securityOptions(): Promise<string[]> {
    this.enter('securityOptions');
    return [...this.securityOpts];
  }

  async hasImage(ref: string): Promise<boolean> {
    this.enter('hasImage');
    return this.images.has(ref);
  }

  /** A build always succeeds here: the tag is then on the engine, as after Docker's. */
  async imageId(ref: string): Promise<string | null> {
    this.enter('imageId');
    return this.images.has(ref) ? `sha256:fake-${ref}` : null;
  }

  async buildImage(request: BuildRequest, onProgress: (p: PullProgress) => void): Promise<void> {
    this.enter('buildImage');
    onProgress({ message: 'Step 1/1: FROM scratch', fraction: 0 });
    this.images.add(request.tag);
    onProgress({ message: `Built ${request.tag}`, fraction: 1 });
  }

  async listImageTags(): Promise<string[]> {
    this.enter('listImageTags');
    return [...this.images].sort();
  }

  async platform(): Promise<{ os: string; arch: string }> {
    this.enter('platform');
    return { os: 'linux', arch: process.arch === 'x64' ? 'amd64' : process.arch };
  }

  /** Registry hosts that answer nothing. */
  readonly deadRegistries = new Set(['127.0.0.1:1']);

  async pullImage(ref: string, onProgress: (p: PullProgress) => void): Promise<void> {
    this.enter('pullImage');
    // A registry host that answers nothing (as 127.0.0.1:1 does for the real engine).
    const host = ref.split('/')[0] ?? '';
    if (ref.includes('/') && this.deadRegistries.has(host)) {
      throw new BerthError('registry_unreachable', `The image ${ref} is not on this computer, and its registry cannot be reached to download it (dial tcp ${host}: connect: connection refused).`, {
        hint: 'Check your connection, or build or load the image locally, or pick another image in the profile settings.',
      });
    }
    if (!this.registry.has(ref)) {
      throw new BerthError('image_unavailable', `The image ${ref} is not on this computer and could not be downloaded: pull access denied for ${ref}`, {
        hint: 'Check the image name and your connection, or build or load the image locally (docker build / docker load), or pick another image in the profile settings.',
      });
    }
    onProgress({ message: 'Downloading layer', fraction: 0.5 });
    this.images.add(ref);
    onProgress({ message: `Downloaded ${ref}`, fraction: 1 });
  }

  async ensureNetwork(name: string, labels: Record<string, string>, pool?: SubnetPool): Promise<void> {
    this.enter('ensureNetwork');
    const existing = this.networks.get(name);
    if (existing && !existing.isolated) {
      throw new BerthError(
        'network_failed',
        `The Docker network ${name} exists but does not keep chats apart (it is not a bridge with inter-container traffic off), so Berth will not use it.`,
        { hint: `Remove it (docker network rm ${name}) and try again; Berth creates it correctly. Or set the profile's egress to "none".` },
      );
    }
    if (existing) return;
    const subnet = pool ? this.subnetFrom(name, pool) : undefined;
    this.networks.set(name, { isolated: true, labels, ...(subnet ? { subnet } : {}) });
  }

  /** The pool's first subnet no network here uses, as DockerEngine picks it; used up: its error. */
  private subnetFrom(name: string, pool: SubnetPool): string {
    const subnet = pickSubnet(pool, [...this.networks.values()].flatMap((n) => (n.subnet ? [n.subnet] : [])));
    if (subnet) return subnet;
    throw new BerthError(
      'network_failed',
      `The sandbox network ${name} could not be made: Berth's address range for sandbox networks (${pool.range}, ${poolCapacity(pool)} networks of /${pool.prefix}) is used up.`,
      { hint: 'Each allowlist chat whose sandbox exists holds a /28 of it and each open profile a /22: stop or delete chats you no longer need, remove other networks in that range (docker network ls), or give Berth another range with BERTH_EGRESS_POOL (e.g. 10.214.0.0/16) and restart it.' },
    );
  }

  /** A network someone else made, not isolated (on that subnet if given): what ensureNetwork must refuse. */
  addForeignNetwork(name: string, subnet?: string): void {
    this.networks.set(name, { isolated: false, labels: {}, ...(subnet ? { subnet } : {}) });
  }

  async removeNetwork(name: string): Promise<void> {
    this.enter('removeNetwork');
    this.networks.delete(name);
  }

  async findContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    this.enter('findContainers');
    return [...this.containers.values()]
      .filter((c) => Object.entries(labels).every(([k, v]) => c.body.Labels[k] === v))
      .map((c) => ({ id: c.id, name: c.name, running: c.running, labels: { ...c.body.Labels } }));
  }

  async inspectContainer(id: string): Promise<ContainerDetails | null> {
    this.enter('inspectContainer');
    const c = this.container(id);
    if (!c) return null;
    return {
      id: c.id,
      name: c.name,
      running: c.running,
      labels: { ...c.body.Labels },
      image: c.body.Image,
      user: c.body.User,
      networkMode: c.body.HostConfig.NetworkMode,
      addresses: Object.fromEntries(c.addresses),
      mounts: c.body.HostConfig.Mounts.map((m) => ({ type: 'bind', source: m.Source, target: m.Target, readOnly: m.ReadOnly })),
      hostConfig: { ...c.body.HostConfig },
    };
  }

  async createContainer(body: ContainerCreateBody): Promise<string> {
    this.enter('createContainer');
    if (this.container(body.name)?.name === body.name) {
      throw new BerthError('already_exists', `A container named ${body.name} already exists.`);
    }
    if (!this.images.has(body.Image)) {
      throw new BerthError('container_failed', `Docker could not create the sandbox container: No such image: ${body.Image}`, {
        hint: 'Check that Docker is healthy (docker info) and try again.',
      });
    }
    // Like Docker, create does not look for the network: start does.
    const id = randomBytes(32).toString('hex');
    const dirs = new Set(['/', '/tmp', '/home', '/bin', '/proc', SHELL_STATE_DIR]);
    const addDir = (d: string) => {
      for (let p = d; p !== '/'; p = path.posix.dirname(p)) dirs.add(p);
    };
    for (const t of [body.WorkingDir, ...Object.keys(body.HostConfig.Tmpfs), ...body.HostConfig.Mounts.map((m) => m.Target)]) addDir(t);
    this.containers.set(id, { id, name: body.name, body, running: false, dirs, running_commands: new Map(), attached: new Set(), addresses: new Map(), log: [], followers: new Set() });
    return id;
  }

  async ensureEgressNetwork(name: string, labels: Record<string, string>, kind: 'sealed' | 'outside', pool?: SubnetPool): Promise<void> {
    this.enter('ensureEgressNetwork');
    const existing = this.networks.get(name);
    if (existing && kind === 'sealed' && !existing.sealed) {
      throw new BerthError('network_failed', `The Docker network ${name} exists but is not sealed the way Berth makes it (internal, no gateway address), so Berth will not use it.`, {
        hint: `Remove it (docker network rm ${name}) and try again; Berth creates it correctly.`,
      });
    }
    if (existing) return;
    const subnet = kind === 'sealed' && pool ? this.subnetFrom(name, pool) : undefined;
    this.networks.set(name, { isolated: false, sealed: kind === 'sealed', labels, ...(subnet ? { subnet } : {}) });
  }

  async findNetworks(labels: Record<string, string>): Promise<NetworkSummary[]> {
    this.enter('findNetworks');
    return [...this.networks.entries()]
      .filter(([, n]) => Object.entries(labels).every(([k, v]) => n.labels[k] === v))
      .map(([name, n]) => ({ name, labels: { ...n.labels }, subnets: n.subnet ? [n.subnet] : [] }));
  }

  private nextAddress = 2;

  private join(c: FakeContainer, network: string): void {
    if (!c.addresses.has(network)) c.addresses.set(network, `10.99.${Math.floor(this.nextAddress / 250)}.${(this.nextAddress++ % 250) + 2}`);
  }

  async connectNetwork(network: string, containerId: string, _aliases: string[]): Promise<void> {
    this.enter('connectNetwork');
    const c = this.container(containerId);
    if (!c) throw notFound(`connect a container to ${network}`);
    if (!this.networks.has(network)) {
      throw new BerthError('network_failed', `Berth could not connect a container to the network ${network}: network ${network} not found`, {
        hint: "The chat does not start without its network policy. Check Docker's networking (docker network ls), or set the profile's egress to \"none\".",
      });
    }
    this.join(c, network);
  }

  async disconnectNetwork(network: string, containerId: string): Promise<void> {
    this.enter('disconnectNetwork');
    this.container(containerId)?.addresses.delete(network);
  }

  async createServiceContainer(spec: ServiceContainerSpec): Promise<string> {
    this.enter('createServiceContainer');
    if (this.container(spec.name)?.name === spec.name) throw new BerthError('already_exists', `A container named ${spec.name} already exists.`);
    if (!this.images.has(spec.image)) {
      throw new BerthError('image_unavailable', `The image ${spec.image} is not on this computer.`, { hint: 'Berth builds it when it is first needed; try again.' });
    }
    const body = {
      name: spec.name, Image: spec.image, User: spec.user, Hostname: spec.name, WorkingDir: '/', Env: spec.env,
      Entrypoint: spec.entrypoint, Cmd: [], Labels: spec.labels, OpenStdin: true, StdinOnce: false, AttachStdin: true,
      AttachStdout: true, AttachStderr: true, Tty: false,
      HostConfig: {
        Mounts: [], CapDrop: ['ALL'], CapAdd: [], SecurityOpt: ['no-new-privileges:true'], Privileged: false, Init: true,
        Tmpfs: { '/tmp': '' }, PidsLimit: spec.pids, Memory: spec.memoryMb * 1024 * 1024, MemorySwap: 0, NanoCpus: 0,
        NetworkMode: spec.network, IpcMode: 'private', PidMode: '', RestartPolicy: { Name: 'no' }, LogConfig: { Type: 'none', Config: {} },
      },
    } satisfies ContainerCreateBody;
    const id = randomBytes(32).toString('hex');
    this.containers.set(id, {
      id, name: spec.name, body, running: false, dirs: new Set(['/', '/tmp']), running_commands: new Map(), attached: new Set(),
      addresses: new Map(), log: [], followers: new Set(), service: true,
    });
    return id;
  }

  async followLogs(id: string, fromStart: boolean, onLine: (line: string, stream: 'stdout' | 'stderr') => void): Promise<{ stop(): void }> {
    this.enter('followLogs');
    const c = this.container(id);
    if (!c) throw notFound("follow a container's log");
    if (fromStart) for (const l of c.log) onLine(l.line, l.stream);
    c.followers.add(onLine);
    return { stop: () => c.followers.delete(onLine) };
  }

  /** The container prints a line (what its process would write), to whoever follows its log. */
  print(id: string, line: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    const c = this.container(id);
    if (!c) return;
    c.log.push({ line, stream });
    for (const f of c.followers) f(line, stream);
  }

  async attach(id: string): Promise<AttachedStreams> {
    this.enter('attach');
    const c = this.container(id);
    if (!c) throw notFound('attach to the sandbox');
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const close = () => {
      c.attached.delete(close);
      stdout.end();
      stderr.end();
      end();
    };
    c.attached.add(close);
    let pending = '';
    let cwd = c.body.WorkingDir;
    let queue = Promise.resolve();
    stdin.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let nl: number;
      let from = 0;
      while ((nl = pending.indexOf('\n', from)) >= 0) {
        // A newline inside a quoted word (an odd number of quotes so far) is the word's own: read on.
        if (((pending.slice(0, nl).replace(/'\\''/g, '').match(/'/g) ?? []).length % 2) === 1) {
          from = nl + 1;
          continue;
        }
        from = 0;
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line.startsWith('__berth_run ')) continue; // the prelude's definitions
        const [marker, dir, fallback, command, serial] = shellWords(line.slice('__berth_run '.length));
        // One command at a time, as the real shell's `wait` does.
        queue = queue.then(async () => {
          let out = '';
          let start = dir ?? '/';
          if (!c.dirs.has(start)) {
            out += `berth: ${start} does not exist; starting in ${fallback}\n`;
            start = fallback && c.dirs.has(fallback) ? fallback : '/';
          }
          const result = await this.runCommand(c, command ?? '', start, Number(serial));
          cwd = result.cwd;
          if (c.attached.has(close)) stdout.write(`${out}${result.output}${marker} ${result.exitCode} ${cwd}\n`);
        });
      }
    });
    return { stdin, stdout, stderr, ended, close };
  }

  async startContainer(id: string): Promise<void> {
    this.enter('startContainer');
    const c = this.container(id);
    if (!c) throw notFound('start the sandbox container');
    const network = c.body.HostConfig.NetworkMode;
    if (!['none', 'bridge', 'default', 'host'].includes(network) && !this.networks.has(network)) {
      throw new BerthError('network_failed', `The sandbox could not join its network: network ${network} not found`, {
        hint: 'Try again; Berth recreates the network. If it keeps failing, set the profile\'s egress to "none".',
      });
    }
    if (!['none', 'bridge', 'default', 'host'].includes(network)) this.join(c, network);
    c.running = true;
    const [sh, flag, script] = c.body.Entrypoint;
    if (c.service && sh === '/bin/sh' && flag === '-c' && script) void this.runService(c, script);
  }

  /** A service container's script, step by step, each step's output printed as it comes. */
  private async runService(c: FakeContainer, script: string): Promise<void> {
    for (const step of script.split(';')) {
      if (!c.running) return;
      const r = await this.runCommand(c, step, '/', -1);
      for (const line of r.output.split('\n').filter(Boolean)) this.print(c.id, line);
    }
  }

  async stopContainer(id: string, _graceSeconds: number): Promise<void> {
    this.enter('stopContainer');
    const c = this.container(id);
    if (!c || !c.running) return;
    this.halt(c);
  }

  /** The container stops by itself (Docker restarted, `docker stop` by hand). */
  stopByHand(id: string): void {
    const c = this.container(id);
    if (c) this.halt(c);
  }

  private halt(c: FakeContainer): void {
    c.running = false;
    for (const finish of c.running_commands.values()) finish(137);
    c.running_commands.clear();
    for (const close of [...c.attached]) close();
  }

  async removeContainer(id: string): Promise<void> {
    this.enter('removeContainer');
    const c = this.container(id);
    if (!c) return;
    this.halt(c);
    this.containers.delete(c.id);
  }

  async execOnce(id: string, cmd: string[], _user: string): Promise<{ exitCode: number; output: string }> {
    this.enter('execOnce');
    const c = this.container(id);
    if (!c) throw notFound('run a command in the sandbox');
    if (!c.running) throw new BerthError('container_failed', `Docker could not run a command in the sandbox: container ${c.id} is not running`);
    // The mount proof (policy/mountProof): a bind mount shows its host folder's device and inode
    // inside the container, as Docker's do.
    if (cmd[0] === 'stat' && cmd[1] === '-c' && cmd[2] === '%d %i') {
      const lines = cmd.slice(3).map((target) => {
        const mount = (c.body.HostConfig.Mounts ?? []).find((m) => m.Target === target);
        if (!mount) return null;
        const st = fs.statSync(mount.Source, { bigint: true });
        return `${st.dev} ${st.ino}`;
      });
      if (lines.some((l) => l === null)) return { exitCode: 1, output: 'stat: cannot stat: No such file or directory\n' };
      return { exitCode: 0, output: `${lines.join('\n')}\n` };
    }
    const script = cmd[0] === '/bin/sh' && cmd[1] === '-c' ? (cmd[2] ?? '') : cmd.join(' ');
    // The kill-tree script (policy/shellProtocol): end the command of that serial.
    const kill = /kill -(INT|TERM|KILL)[\s\S]*\[ "\$__serial" = "(\d+)" \]|\[ "\$__serial" = "(\d+)" \][\s\S]*kill -(INT|TERM|KILL)/.exec(script);
    if (kill) {
      const signal = kill[1] ?? kill[4];
      const serial = Number(kill[2] ?? kill[3]);
      c.running_commands.get(serial)?.(signal === 'INT' ? 130 : signal === 'TERM' ? 143 : 137);
      return { exitCode: 0, output: '' };
    }
    const result = await this.runCommand(c, script, c.body.WorkingDir, -1);
    return { exitCode: result.exitCode, output: result.output };
  }

  /** The fake has no network stack inside its containers: a relay has nothing to reach (port forwards run against the real engine). */
  async execPipe(id: string, _cmd: string[], _user: string): Promise<AttachedStreams> {
    this.enter('execPipe');
    const c = this.container(id);
    if (!c) throw notFound('relay a port of the sandbox');
    throw new BerthError('container_failed', 'Docker could not relay a port of the sandbox: the in-memory engine has no network inside its containers.');
  }

  /** Readings a second apart while the container runs: memory and processes grow with what it runs. */
  async streamStats(id: string, onSample: (sample: StatsSample) => void): Promise<StatsStream> {
    this.enter('streamStats');
    const c = this.container(id);
    if (!c || !c.running) throw new BerthError('container_vanished', 'The sandbox is not there any more, so there is nothing to measure.', { hint: 'Run a command or open a terminal: Berth starts a new one.' });
    let first = true;
    const read = () => {
      const busy = c.running_commands.size;
      onSample({
        at: Date.now(),
        cpus: first ? null : busy > 0 ? 0.5 : 0,
        memoryBytes: this.load?.memoryBytes ?? (1 + busy) * 1024 * 1024,
        memoryLimitBytes: c.body.HostConfig.Memory,
        pids: this.load?.pids ?? 1 + busy,
        pidsLimit: c.body.HostConfig.PidsLimit,
      });
      first = false;
    };
    let finish!: () => void;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    const timer = setInterval(read, 1000);
    timer.unref();
    this.statsStreams++;
    let open = true;
    const close = () => {
      if (!open) return;
      open = false;
      this.statsStreams--;
      clearInterval(timer);
      c.attached.delete(close);
      finish();
    };
    // It ends when the container stops, as the engine's does.
    c.attached.add(close);
    queueMicrotask(() => open && read());
    return { ended, close };
  }

  async writableLayerBytes(id: string): Promise<number | null> {
    this.enter('writableLayerBytes');
    const c = this.container(id);
    return c ? 0 : null;
  }

  async execTty(id: string, options: TtyOptions): Promise<TtyProcess> {
    this.enter('execTty');
    const c = this.container(id);
    if (!c) throw notFound('open a terminal in the sandbox');
    if (!c.running) throw new BerthError('container_failed', `Docker could not open a terminal in the sandbox: container ${c.id} is not running`);
    let cwd = options.workingDir;
    let line = '';
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const run = (command: string) => this.runCommand(c, command, cwd, -1);
    const stream = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, done) {
        for (const ch of chunk.toString('utf8')) {
          if (ch !== '\r' && ch !== '\n') {
            line += ch;
            stream.push(ch);
            continue;
          }
          const command = line;
          line = '';
          stream.push('\r\n');
          if (/^\s*exit\b/.test(command)) {
            finish();
            break;
          }
          void run(command).then((r) => {
            cwd = r.cwd;
            stream.push(r.output.replace(/\n/g, '\r\n'));
          });
        }
        done();
      },
    });
    // Like the real stream: it has ended once its output was read to the end, or it was destroyed.
    stream.on('end', () => end());
    stream.on('close', () => end());
    const finish = () => {
      c.attached.delete(finish);
      stream.push(null);
    };
    c.attached.add(finish);
    // `sh -c X` runs X and exits; a login shell waits for input.
    const script = options.cmd[0] === '/bin/sh' && options.cmd[1] === '-c' ? (options.cmd[2] ?? '') : '';
    if (script && !/exec (bash|sh) -l/.test(script)) {
      void this.runCommand(c, script, cwd, -1).then((r) => {
        stream.push(r.output.replace(/\n/g, '\r\n'));
        finish();
      });
    }
    const proc = stream as unknown as TtyProcess['stream'];
    return { stream: proc, resize: async () => undefined, ended };
  }

  /** Runs the command language in the container; a kill or a stop ends it with its signal's code. */
  async ensureVolume(name: string, labels: Record<string, string>): Promise<boolean> {
    this.enter('ensureVolume');
    if (this.volumes.has(name)) return false;
    this.volumes.set(name, { labels: { ...labels }, dir: fs.mkdtempSync(path.join(os.tmpdir(), 'berth-fake-volume-')) });
    return true;
  }

  async hasVolume(name: string): Promise<boolean> {
    this.enter('hasVolume');
    return this.volumes.has(name);
  }

  async removeVolume(name: string): Promise<void> {
    this.enter('removeVolume');
    const v = this.volumes.get(name);
    if (!v) return;
    const inUse = [...this.containers.values()].some((c) => c.body.HostConfig.Mounts.some((m) => (m as { Type: string }).Type === 'volume' && m.Source === name));
    if (inUse) throw new BerthError('container_failed', `Docker could not remove the volume ${name}: volume is in use`, { hint: 'Check that Docker is healthy (docker info) and try again.' });
    fs.rmSync(v.dir, { recursive: true, force: true });
    this.volumes.delete(name);
  }

  async removeVolumes(labels: Record<string, string>): Promise<void> {
    this.enter('removeVolumes');
    for (const [name, v] of [...this.volumes]) {
      if (Object.entries(labels).every(([k, val]) => v.labels[k] === val)) await this.removeVolume(name);
    }
  }

  /** The volume folder behind a container path, and the path inside it; null when no volume holds it. */
  private volumeAt(c: FakeContainer, containerPath: string): string | null {
    for (const m of c.body.HostConfig.Mounts) {
      if ((m as { Type: string }).Type !== 'volume') continue;
      const rel = path.posix.relative(m.Target, containerPath);
      if (rel.startsWith('..') || path.posix.isAbsolute(rel)) continue;
      const v = this.volumes.get(m.Source);
      if (v) return path.join(v.dir, rel);
    }
    return null;
  }

  async putArchive(id: string, containerPath: string, tar: NodeJS.ReadableStream): Promise<void> {
    this.enter('putArchive');
    const c = this.container(id);
    if (!c) throw notFound(`copy files into the sandbox at ${containerPath}`);
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-fake-archive-'));
    try {
      await pipeline(tar, tarFs.extract(scratch));
      // Each volume mounted under (or at) the path gets what the archive put there.
      for (const m of c.body.HostConfig.Mounts) {
        if ((m as { Type: string }).Type !== 'volume') continue;
        const v = this.volumes.get(m.Source);
        const rel = path.posix.relative(containerPath, m.Target);
        if (!v || rel.startsWith('..')) continue;
        const from = path.join(scratch, rel);
        if (fs.existsSync(from)) fs.cpSync(from, v.dir, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      }
      const inside = this.volumeAt(c, containerPath);
      if (inside && !c.body.HostConfig.Mounts.some((m) => m.Target === containerPath)) fs.cpSync(scratch, inside, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  async getArchive(id: string, containerPath: string): Promise<NodeJS.ReadableStream> {
    this.enter('getArchive');
    const c = this.container(id);
    if (!c) throw notFound(`copy files out of the sandbox at ${containerPath}`);
    const dir = this.volumeAt(c, containerPath);
    if (!dir || !fs.existsSync(dir)) {
      throw new BerthError('container_failed', `Docker could not copy files out of the sandbox at ${containerPath}: no such file or directory`, {
        hint: 'Check that Docker is healthy (docker info) and try again.',
      });
    }
    const base = path.posix.basename(containerPath);
    return tarFs.pack(dir, { map: (h) => ({ ...h, name: h.name === '.' ? base : `${base}/${h.name}` }) });
  }

  /** Project environments are proved on the real engine (integration/environment*.test.ts): here each call says so. */
  environmentImages(): EnvironmentImageOps {
    const no = () => Promise.reject(new BerthError('image_unavailable', 'The fake engine does not build project environments.', { hint: 'Run this on the real engine.' }));
    return { build: no, commit: no, inspect: async () => null, find: async () => [], remove: async () => undefined, readFile: no };
  }

  /** A `docker save` archive with only its manifest (the layers are not modelled). */
  async exportImage(tag: string): Promise<NodeJS.ReadableStream> {
    this.enter('exportImage');
    if (!this.images.has(tag)) {
      throw new BerthError('image_unavailable', `Docker could not export the image ${tag}: No such image: ${tag}`, { hint: 'Check the image name and try again.' });
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-fake-image-'));
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify([{ Config: 'config.json', RepoTags: [tag], Layers: [] }]));
    const out = tarFs.pack(dir);
    out.on('end', () => fs.rmSync(dir, { recursive: true, force: true }));
    return out;
  }

  async loadImage(tar: NodeJS.ReadableStream): Promise<void> {
    this.enter('loadImage');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-fake-load-'));
    try {
      await pipeline(tar, tarFs.extract(dir));
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { RepoTags?: string[] }[];
      for (const entry of manifest) for (const t of entry.RepoTags ?? []) this.images.add(t);
    } catch (error) {
      if (error instanceof BerthError) throw error;
      throw new BerthError('image_unavailable', `Docker could not load an image: ${(error as Error).message}`, { hint: 'Check that Docker is healthy (docker info) and try again.' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  private async runCommand(c: FakeContainer, command: string, cwd: string, serial: number): Promise<CommandResult & { cwd: string }> {
    const hooked = this.hook?.(command, c.id);
    let finish!: (rc: number) => void;
    const killed = new Promise<number>((resolve) => (finish = resolve));
    if (serial >= 0) c.running_commands.set(serial, finish);
    try {
      if (hooked) {
        const raced = await Promise.race([Promise.resolve(hooked), killed]);
        return typeof raced === 'number' ? { output: '', exitCode: raced, cwd } : { ...raced, cwd };
      }
      return await interpret(c, command, cwd, killed);
    } finally {
      if (serial >= 0) c.running_commands.delete(serial);
    }
  }
}

/** The single-quoted words of a `__berth_run` line (shellQuote's output). */
function shellWords(text: string): string[] {
  const words: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : (m[2] as string));
  return words;
}

async function interpret(c: FakeContainer, command: string, start: string, killed: Promise<number>): Promise<CommandResult & { cwd: string }> {
  let cwd = start;
  let output = '';
  let rc = 0;
  // Shell variables the command sets (`x=$?`), as the agent's ports trailer uses them.
  const vars = new Map<string, string>();
  const steps = command.split(/(;|&&|\n)/);
  for (let i = 0; i < steps.length; i += 2) {
    if (i > 0 && steps[i - 1] === '&&' && rc !== 0) continue;
    const words = (steps[i] ?? '').trim().split(/\s+/).filter(Boolean).map((w) => w.replace(/^(['"])(.*)\1$/, '$2')).map((w) => w.replace(/^\$(\w+)$/, (_m, v: string) => vars.get(v) ?? ''));
    const [name, ...args] = words;
    if (!name) continue;
    const assigned = /^(\w+)=(.*)$/.exec(name);
    if (assigned && args.length === 0) {
      vars.set(assigned[1] as string, assigned[2] === '$?' ? String(rc) : (assigned[2] as string));
      continue;
    }
    const abs = (p: string) => path.posix.resolve(cwd, p);
    switch (name) {
      case 'echo':
        output += `${args.join(' ')}\n`;
        rc = 0;
        break;
      case 'printf':
        output += (args[0] ?? '').replace(/\\n/g, '\n').replace('%s', args[1] ?? '');
        rc = 0;
        break;
      case 'cat': // the fake has no files to cat (the ports trailer's /proc/net/tcp reads as empty)
        rc = 0;
        break;
      case 'pwd':
        output += `${cwd}\n`;
        rc = 0;
        break;
      case 'cd': {
        const to = abs(args[0] ?? '/home/berth');
        if (c.dirs.has(to)) {
          cwd = to;
          rc = 0;
        } else {
          output += `sh: cd: can't cd to ${args[0]}: No such file or directory\n`;
          rc = 2;
        }
        break;
      }
      case 'mkdir':
        for (const a of args.filter((x) => !x.startsWith('-'))) for (let p = abs(a); p !== '/'; p = path.posix.dirname(p)) c.dirs.add(p);
        rc = 0;
        break;
      case 'true':
      case ':':
      case 'command': // `command set -o pipefail` before the agent's commands: the fake has no pipelines
        rc = 0;
        break;
      case 'false':
        rc = 1;
        break;
      case 'exit':
        return { output, exitCode: Number(args[0] ?? rc), cwd };
      case 'sleep': {
        const ms = Number(args[0] ?? 0) * 1000;
        const slept = await Promise.race([new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref()), killed]);
        if (slept !== null) return { output, exitCode: slept, cwd };
        rc = 0;
        break;
      }
      default:
        output += `sh: ${name}: not found\n`;
        rc = 127;
    }
  }
  return { output, exitCode: rc, cwd };
}

/**
 * Makes Berth's egress proxy image when an allowlist profile first needs it and the engine
 * does not have it: from the Debian recipe where a registry answers, otherwise (an offline
 * Linux engine on this computer, Berth running as root) from a root file system debootstrap
 * makes from the Debian mirror. One build however many sandboxes ask at once; progress goes to
 * the sandbox that waits for it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { Engine, PullProgress } from '../engine/dockerEngine.js';
import {
  EGRESS_DEBIAN_RECIPE, EGRESS_ROOTFS_RECIPE, debianMirror, debootstrapArgs, debootstrapProgress,
} from '../policy/egressImage.js';

/** Runs a program, calling onLine with each line it prints; resolves with its exit code and last lines. */
export type RunProgram = (file: string, args: string[], onLine: (line: string) => void) => Promise<{ code: number; tail: string }>;

export interface EgressImageOptions {
  engine: Engine;
  tag: string;
  /** Whether the engine runs on this computer (a socket), so a root file system made here suits it. */
  engineIsLocal: boolean;
  /** Skips the Debian recipe (tests that must not depend on a registry being absent). */
  debian?: boolean;
  run?: RunProgram;
  debootstrap?: string;
}

const APT_GET = '/usr/bin/apt-get';
const DEBOOTSTRAP_CANDIDATES = ['/usr/sbin/debootstrap', '/sbin/debootstrap', '/usr/bin/debootstrap'];

export const runProgram: RunProgram = (file, args, onLine) =>
  new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    const last: string[] = [];
    const read = (stream: NodeJS.ReadableStream) => {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) {
          last.push(line);
          if (last.length > 5) last.shift();
          onLine(line);
        }
      });
    };
    read(child.stdout);
    read(child.stderr);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, tail: last.join('\n').trim() }));
  });

export class EgressImage {
  private inFlight: Promise<void> | null = null;
  /** Everyone waiting for the build in flight sees its progress (each chat that asked). */
  private readonly listeners = new Set<(p: PullProgress) => void>();

  constructor(private readonly options: EgressImageOptions) {}

  get tag(): string {
    return this.options.tag;
  }

  /** Resolves once the image is on the engine, building it first if it is missing. */
  async ensure(onProgress: (p: PullProgress) => void): Promise<void> {
    if (await this.options.engine.hasImage(this.options.tag)) return;
    this.listeners.add(onProgress);
    this.inFlight ??= this.build((p) => {
      for (const l of this.listeners) l(p);
    }).finally(() => {
      this.inFlight = null;
      this.listeners.clear();
    });
    try {
      await this.inFlight;
    } finally {
      this.listeners.delete(onProgress);
    }
  }

  private async build(onProgress: (p: PullProgress) => void): Promise<void> {
    const { engine, tag } = this.options;
    let debianFailure: BerthError | null = null;
    if (this.options.debian !== false) {
      onProgress({ message: `Building Berth's egress proxy image ${tag} (Debian's HAProxy and squid; first time only)…`, fraction: 0 });
      try {
        await withContext({ Dockerfile: EGRESS_DEBIAN_RECIPE }, (dir) => engine.buildImage({ contextDir: dir, files: [], tag }, onProgress));
        return;
      } catch (error) {
        if (error instanceof BerthError && error.code === 'engine_unreachable') throw error;
        debianFailure = error instanceof BerthError ? error : null;
      }
    }
    await this.installDebootstrap(onProgress);
    const why = this.offlineProblem();
    if (why) {
      throw new BerthError(
        'image_unavailable',
        `Berth's egress proxy image ${tag} is not on this computer and could not be built${debianFailure ? ` (${debianFailure.message})` : ''}; ${why}.`,
        {
          hint: `Connect to a registry and try again, or build it once as root: sudo bash scripts/build-egress-image.sh (needs debootstrap). Until then, set the profile's egress to "open" or "none".`,
        },
      );
    }
    await this.buildFromRootfs(onProgress);
  }

  /** Why the offline recipe cannot run here, or null when it can. */
  private offlineProblem(): string | null {
    if (!this.options.engineIsLocal || process.platform !== 'linux') return 'without a registry, Berth can build it only when Docker runs on this Linux computer';
    if (process.getuid?.() !== 0) return 'without a registry, building it needs root (debootstrap)';
    if (!this.debootstrap()) return 'without a registry, building it needs debootstrap (apt-get install debootstrap)';
    return null;
  }

  /**
   * The quick start promises a first chat with nothing else installed: on an offline Debian
   * computer where Berth runs as root, debootstrap comes from the same mirror the proxy's
   * packages will, so Berth installs it with apt-get (once) rather than stopping at an error.
   */
  private async installDebootstrap(onProgress: (p: PullProgress) => void): Promise<void> {
    if (this.debootstrap() || !this.options.engineIsLocal || process.platform !== 'linux' || process.getuid?.() !== 0) return;
    if (!fs.existsSync(APT_GET)) return;
    const run = this.options.run ?? runProgram;
    onProgress({ message: "No registry answers: installing debootstrap from Debian's packages (first time only)…", fraction: 0 });
    const apt = await run(APT_GET, ['install', '-y', '-q', '--no-install-recommends', 'debootstrap'], () => undefined);
    if (apt.code !== 0 || !this.debootstrap()) {
      throw new BerthError('image_unavailable', `Berth could not install debootstrap to make its egress proxy image (${apt.tail.split('\n').pop() ?? apt.code}).`, {
        hint: 'Run apt-get update, then try again; or set the profile\'s egress to "open" or "none".',
      });
    }
  }

  private debootstrap(): string | null {
    if (this.options.debootstrap) return this.options.debootstrap;
    return DEBOOTSTRAP_CANDIDATES.find((c) => fs.existsSync(c)) ?? null;
  }

  private async buildFromRootfs(onProgress: (p: PullProgress) => void): Promise<void> {
    const { engine, tag } = this.options;
    const run = this.options.run ?? runProgram;
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-egress-'));
    try {
      const rootfs = path.join(work, 'rootfs');
      const mirror = debianMirror(readSources());
      onProgress({ message: `No registry answers: making the egress proxy image ${tag} from Debian's packages (${mirror}), first time only…`, fraction: 0 });
      const boot = await run(this.debootstrap() as string, debootstrapArgs(rootfs, mirror), (line) => {
        const p = debootstrapProgress(line);
        if (p) onProgress(p);
      });
      if (boot.code !== 0) {
        throw new BerthError('image_unavailable', `Berth could not make the egress proxy image ${tag}: debootstrap failed (${boot.tail.split('\n').pop() ?? boot.code}).`, {
          hint: `Check that this computer reaches ${mirror} (apt-get update), then try again; or set the profile's egress to "open" or "none".`,
        });
      }
      // Docker gives a container its own /dev and /proc; the package caches are not needed.
      for (const d of ['dev', 'proc', 'sys', 'var/cache/apt/archives', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man']) {
        const dir = path.join(rootfs, d);
        for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir) : []) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
      }
      onProgress({ message: 'Proxy image: packing the root file system…', fraction: 0.88 });
      const tar = await run('tar', ['-C', rootfs, '--numeric-owner', '-cf', path.join(work, 'rootfs.tar'), '.'], () => undefined);
      if (tar.code !== 0) throw new BerthError('image_unavailable', `Berth could not pack the egress proxy image: ${tar.tail}`, { hint: 'Check the free space in the temporary folder and try again.' });
      fs.rmSync(rootfs, { recursive: true, force: true });
      fs.writeFileSync(path.join(work, 'Dockerfile'), EGRESS_ROOTFS_RECIPE);
      onProgress({ message: `Proxy image: importing it into Docker as ${tag}…`, fraction: 0.92 });
      await engine.buildImage({ contextDir: work, files: ['rootfs.tar'], tag, networkMode: 'none' }, (p) => onProgress({ message: p.message, fraction: p.fraction === null ? null : 0.92 + p.fraction * 0.08 }));
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

function readSources(): string {
  for (const f of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    try {
      return fs.readFileSync(f, 'utf8');
    } catch {
      // not there: the next
    }
  }
  return '';
}

/** A temporary build context holding `files`, removed afterwards. */
async function withContext(files: Record<string, string>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-egress-ctx-'));
  try {
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
    await fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

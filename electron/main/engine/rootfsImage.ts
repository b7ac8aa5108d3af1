/**
 * An image made without a registry: a Debian root file system that debootstrap makes here from
 * the Debian mirror apt uses (which answers where a registry may not), packed as a tar and added
 * `FROM scratch` through the Engine API (ADD keeps the files' owners). Berth's egress proxy
 * image and its full default sandbox image are both made this way when no registry answers.
 * Needs an engine on this Linux computer and root (debootstrap); debootstrap itself is
 * installed from Debian's packages when it is missing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { Engine, PullProgress } from './dockerEngine.js';
import { debianMirror, debootstrapArgs, debootstrapProgress, ROOTFS_TRIM } from '../policy/rootfsImage.js';

/** Runs a program, calling onLine with each line it prints; resolves with its exit code and last lines. */
export type RunProgram = (file: string, args: string[], onLine: (line: string) => void) => Promise<{ code: number; tail: string }>;

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

export interface RootfsImageRequest {
  engine: Engine;
  tag: string;
  /** What the image is, in the progress lines ("Proxy image", "Full sandbox image"). */
  what: string;
  packages: readonly string[];
  /** The Dockerfile that adds rootfs.tar (FROM scratch, ADD rootfs.tar /, …). */
  recipe: string;
  /** Last touches to the root file system before it is packed (users, folders). */
  finish?: (rootfs: string) => void;
  run?: RunProgram;
  debootstrap?: string;
}

export class RootfsBuilder {
  constructor(private readonly options: { engineIsLocal: boolean; run?: RunProgram; debootstrap?: string }) {}

  /** Why the offline recipe cannot run here, or null when it can. */
  problem(): string | null {
    if (!this.options.engineIsLocal || process.platform !== 'linux') return 'without a registry, Berth can build it only when Docker runs on this Linux computer';
    if (process.getuid?.() !== 0) return 'without a registry, building it needs root (debootstrap)';
    if (!this.debootstrap()) return 'without a registry, building it needs debootstrap (apt-get install debootstrap)';
    return null;
  }

  /**
   * The quick start promises a first chat with nothing else installed: on an offline Debian
   * computer where Berth runs as root, debootstrap comes from the same mirror the image's
   * packages will, so Berth installs it with apt-get (once) rather than stopping at an error.
   */
  async installDebootstrap(onProgress: (p: PullProgress) => void): Promise<void> {
    if (this.debootstrap() || !this.options.engineIsLocal || process.platform !== 'linux' || process.getuid?.() !== 0) return;
    if (!fs.existsSync(APT_GET)) return;
    const run = this.options.run ?? runProgram;
    onProgress({ message: "No registry answers: installing debootstrap from Debian's packages (first time only)…", fraction: 0 });
    const apt = await run(APT_GET, ['install', '-y', '-q', '--no-install-recommends', 'debootstrap'], () => undefined);
    if (apt.code !== 0 || !this.debootstrap()) {
      throw new BerthError('image_unavailable', `Berth could not install debootstrap to make its images without a registry (${apt.tail.split('\n').pop() ?? apt.code}).`, {
        hint: 'Run apt-get update, then try again.',
      });
    }
  }

  private debootstrap(): string | null {
    if (this.options.debootstrap) return this.options.debootstrap;
    return DEBOOTSTRAP_CANDIDATES.find((c) => fs.existsSync(c)) ?? null;
  }

  async build(req: Omit<RootfsImageRequest, 'run' | 'debootstrap'>, onProgress: (p: PullProgress) => void): Promise<void> {
    const { engine, tag, what } = req;
    const run = this.options.run ?? runProgram;
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-rootfs-'));
    try {
      const rootfs = path.join(work, 'rootfs');
      const mirror = debianMirror(readSources());
      onProgress({ message: `No registry answers: making ${tag} from Debian's packages (${mirror}), first time only…`, fraction: 0 });
      const boot = await run(this.debootstrap() as string, debootstrapArgs(rootfs, mirror, req.packages), (line) => {
        const p = debootstrapProgress(line);
        if (p) onProgress({ message: `${what}: ${p.message}`, fraction: p.fraction });
      });
      if (boot.code !== 0) {
        throw new BerthError('image_unavailable', `Berth could not make the image ${tag}: debootstrap failed (${boot.tail.split('\n').pop() ?? boot.code}).`, {
          hint: `Check that this computer reaches ${mirror} (apt-get update), then try again.`,
        });
      }
      // Docker gives a container its own /dev and /proc; package caches, documentation and
      // translations are not needed in a container (the proxy image: 182 MB before, see ROOTFS_TRIM).
      for (const d of ROOTFS_TRIM) {
        const dir = path.join(rootfs, d);
        for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir) : []) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
      }
      req.finish?.(rootfs);
      onProgress({ message: `${what}: packing the root file system…`, fraction: 0.88 });
      const tar = await run('tar', ['-C', rootfs, '--numeric-owner', '-cf', path.join(work, 'rootfs.tar'), '.'], () => undefined);
      if (tar.code !== 0) throw new BerthError('image_unavailable', `Berth could not pack the image ${tag}: ${tar.tail}`, { hint: 'Check the free space in the temporary folder and try again.' });
      fs.rmSync(rootfs, { recursive: true, force: true });
      fs.writeFileSync(path.join(work, 'Dockerfile'), req.recipe);
      onProgress({ message: `${what}: importing it into Docker as ${tag}…`, fraction: 0.92 });
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
export async function withBuildContext(files: Record<string, string | Buffer>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ctx-'));
  try {
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content, { mode: name === 'busybox' ? 0o755 : 0o644 });
    await fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

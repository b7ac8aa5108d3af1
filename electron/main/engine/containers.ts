/** Containers: create (Podman's checked), start, stop, remove, service containers, logs, stats, volumes, archives. */
import Docker from 'dockerode';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { BerthError } from '../../../shared/errors.js';
import type { ContainerCreateBody } from '../policy/containerSpec.js';
import { engineMessage, statusOf } from './engineErrors.js';
import { checkPodmanContainer, podmanCannotLimit, withSeccompFile, withStdinFifo } from './podmanSandbox.js';
import { statsSample, type RawStats, type StatsSample } from './statsSample.js';
import type { ContainerDetails, ContainerSummary, ServiceContainerSpec, StatsStream } from './engineInterface.js';
import type { DockerCall } from './dockerCall.js';

/** Why a container could not join its network (create or start): the engine names the network. */
function networkJoinError(error: unknown): BerthError | null {
  if (statusOf(error) !== 404 || !/network/i.test(engineMessage(error))) return null;
  return new BerthError('network_failed', `The sandbox could not join its network: ${engineMessage(error)}`, {
    hint: 'Try again; Berth recreates the network. If it keeps failing, set the profile\'s egress to "none".',
    cause: error,
  });
}


/**
 * Runs `create` with seccomp profiles written as files for Podman (podmanSandbox.ts), each in a
 * folder only this process can write, readable by a rootless Podman's user, and removes them
 * when it is done. Podman reads the file when it creates the container (the profile becomes part
 * of the container's spec and applies at every later start: test/integration/podman.test.ts), so
 * keeping it only left one folder per process in the temp folder for good.
 */
async function withSeccompFiles<T>(create: (fileFor: (profile: string) => string) => Promise<T>): Promise<T> {
  const dirs: string[] = [];
  try {
    return await create((profile) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-seccomp-'));
      dirs.push(dir);
      fs.chmodSync(dir, 0o755);
      const file = path.join(dir, 'profile.json');
      fs.writeFileSync(file, profile, { mode: 0o644 });
      return file;
    });
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export class DockerContainers {
  constructor(private readonly c: DockerCall) {}

  createServiceContainer(spec: ServiceContainerSpec): Promise<string> {
    return this.c.call(
      `create the container ${spec.name}`,
      async (docker) =>
        (
          await docker.createContainer({
            name: spec.name,
            Image: spec.image,
            User: spec.user,
            Entrypoint: spec.entrypoint,
            Cmd: [],
            Env: spec.env,
            Labels: spec.labels,
            HostConfig: {
              NetworkMode: spec.network,
              Dns: spec.dns,
              // squid will not run as pid 1 (it signals itself through its pid file on reconfigure).
              Init: true,
              CapDrop: ['ALL'],
              SecurityOpt: ['no-new-privileges:true'],
              ReadonlyRootfs: true,
              Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=64m,mode=1777' },
              Memory: spec.memoryMb * 1024 * 1024,
              PidsLimit: spec.pids,
              RestartPolicy: { Name: 'no' },
              LogConfig: { Type: 'json-file', Config: { 'max-size': '5m', 'max-file': '1' } },
            },
          })
        ).id,
      (error) => {
        if (statusOf(error) === 409) throw new BerthError('already_exists', `A container named ${spec.name} already exists.`, { cause: error });
        if (statusOf(error) === 404 && /image/i.test(engineMessage(error))) {
          throw new BerthError('image_unavailable', `The image ${spec.image} is not on this computer.`, { hint: 'Berth builds it when it is first needed; try again.', cause: error });
        }
        return undefined;
      },
    );
  }

  followLogs(id: string, fromStart: boolean, onLine: (line: string, stream: 'stdout' | 'stderr') => void): Promise<{ stop(): void }> {
    return this.c.call("follow a container's log", async (docker) => {
      const stream = (await docker.getContainer(id).logs({
        follow: true, stdout: true, stderr: true, ...(fromStart ? {} : { since: Math.floor(Date.now() / 1000) }),
      })) as unknown as NodeJS.ReadableStream & { destroy(): void };
      const split = (name: 'stdout' | 'stderr'): PassThrough => {
        const out = new PassThrough();
        let rest = '';
        out.on('data', (chunk: Buffer) => {
          const lines = (rest + chunk.toString('utf8')).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) onLine(line, name);
        });
        return out;
      };
      docker.modem.demuxStream(stream, split('stdout'), split('stderr'));
      stream.on('error', () => undefined);
      return { stop: () => stream.destroy() };
    });
  }

  async findContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    const list = await this.c.call('list containers', (docker) =>
      docker.listContainers({ all: true, filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } }),
    );
    return list.map((c) => ({
      id: c.Id,
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      running: c.State === 'running',
      labels: c.Labels ?? {},
    }));
  }

  async inspectContainer(id: string): Promise<ContainerDetails | null> {
    const info = await this.c.call(
      'inspect a container',
      (docker) => docker.getContainer(id).inspect(),
      (error) => (statusOf(error) === 404 ? { value: null } : undefined),
    );
    if (!info) return null;
    return {
        id: info.Id,
        name: info.Name.replace(/^\//, ''),
        running: info.State.Running,
        labels: info.Config.Labels ?? {},
        image: info.Config.Image,
        user: info.Config.User,
        networkMode: info.HostConfig.NetworkMode ?? '',
        addresses: Object.fromEntries(Object.entries(info.NetworkSettings?.Networks ?? {}).map(([n, v]) => [n, v.IPAddress]).filter(([, ip]) => ip)),
        mounts: (info.Mounts ?? []).map((m) => ({ type: m.Type, source: m.Source, target: m.Destination, readOnly: !m.RW })),
        hostConfig: info.HostConfig as unknown as Record<string, unknown>,
      };
  }

  createContainer(body: ContainerCreateBody): Promise<string> {
    return this.c.call(
      'create the sandbox container',
      async (docker) => {
        const kind = await this.c.kind();
        // A Podman that cannot enforce the limits would drop them silently: refuse before creating.
        const cannot = podmanCannotLimit(kind);
        if (cannot) throw cannot;
        const id =
          kind.name === 'podman'
            ? await withSeccompFiles(async (fileFor) => (await docker.createContainer(withStdinFifo(withSeccompFile(body, fileFor)) as unknown as Docker.ContainerCreateOptions)).id)
            : (await docker.createContainer(body as unknown as Docker.ContainerCreateOptions)).id;
        if (kind.name === 'podman') {
          // What Podman made, not what was asked: a dropped setting removes the container.
          const refused = checkPodmanContainer(body, (await docker.getContainer(id).inspect()).HostConfig as unknown as Record<string, unknown>);
          if (refused) {
            await docker.getContainer(id).remove({ force: true }).catch(() => undefined);
            throw refused;
          }
        }
        return id;
      },
      (error) => {
        if (statusOf(error) === 409) throw new BerthError('already_exists', `A container named ${body.name} already exists.`, { cause: error });
        const network = networkJoinError(error);
        if (network) throw network;
        return undefined;
      },
    );
  }

  startContainer(id: string): Promise<void> {
    return this.c.call(
      'start the sandbox container',
      async (docker) => void (await docker.getContainer(id).start()),
      (error) => {
        if (statusOf(error) === 304) return { value: undefined };
        const network = networkJoinError(error);
        if (network) throw network;
        return undefined;
      },
    );
  }

  stopContainer(id: string, graceSeconds: number): Promise<void> {
    return this.c.call(
      'stop the sandbox container',
      async (docker) => void (await docker.getContainer(id).stop({ t: graceSeconds })),
      (error) => (statusOf(error) === 304 || statusOf(error) === 404 ? { value: undefined } : undefined),
    );
  }

  removeContainer(id: string): Promise<void> {
    return this.c.call(
      'remove the sandbox container',
      async (docker) => void (await docker.getContainer(id).remove({ force: true, v: true })),
      // Gone already, or already being removed by a concurrent call.
      (error) =>
        statusOf(error) === 404 || (statusOf(error) === 409 && /already in progress/i.test(engineMessage(error))) ? { value: undefined } : undefined,
    );
  }

  streamStats(id: string, onSample: (sample: StatsSample) => void): Promise<StatsStream> {
    return this.c.call(
      'read the sandbox\'s use',
      async (docker) => {
        const stream = (await docker.getContainer(id).stats({ stream: true })) as unknown as NodeJS.ReadableStream & { destroy(): void };
        // Newline-delimited JSON, one object a reading; a chunk may hold part of one.
        let buffered = '';
        stream.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          let nl: number;
          while ((nl = buffered.indexOf('\n')) !== -1) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line === '') continue;
            try {
              onSample(statsSample(JSON.parse(line) as RawStats, Date.now()));
            } catch {
              // A reading the engine garbled is skipped; the next one follows within a second.
            }
          }
        });
        const ended = new Promise<void>((resolve) => {
          stream.on('end', () => resolve());
          stream.on('close', () => resolve());
          stream.on('error', () => resolve());
        });
        return { ended, close: () => stream.destroy() };
      },
      (error) => {
        if (statusOf(error) === 404) throw new BerthError('container_vanished', 'The sandbox is not there any more, so there is nothing to measure.', { hint: 'Run a command or open a terminal: Berth starts a new one.', cause: error });
        return undefined;
      },
    );
  }

  writableLayerBytes(id: string): Promise<number | null> {
    return this.c.call(
      'measure the sandbox',
      async (docker) => {
        const info = (await docker.getContainer(id).inspect({ size: true } as Docker.ContainerInspectOptions)) as { SizeRw?: number };
        return typeof info.SizeRw === 'number' ? info.SizeRw : 0;
      },
      (error) => (statusOf(error) === 404 ? { value: null } : undefined),
    );
  }

  ensureVolume(name: string, labels: Record<string, string>): Promise<boolean> {
    return this.c.call(`create the volume ${name}`, async (docker) => {
      try {
        await docker.getVolume(name).inspect();
        return false;
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
      await docker.createVolume({ Name: name, Labels: labels });
      return true;
    });
  }

  hasVolume(name: string): Promise<boolean> {
    return this.c.call(
      `look for the volume ${name}`,
      async (docker) => {
        await docker.getVolume(name).inspect();
        return true;
      },
      (error) => (statusOf(error) === 404 ? { value: false } : undefined),
    );
  }

  removeVolume(name: string): Promise<void> {
    return this.c.call(
      `remove the volume ${name}`,
      async (docker) => {
        await docker.getVolume(name).remove();
      },
      (error) => (statusOf(error) === 404 ? { value: undefined } : undefined),
    );
  }

  async removeVolumes(labels: Record<string, string>): Promise<void> {
    const names = await this.c.call('list the sandbox volumes', async (docker) => {
      const list = await docker.listVolumes({ filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } });
      return (list.Volumes ?? []).map((v) => v.Name);
    });
    for (const name of names) await this.removeVolume(name);
  }

  putArchive(id: string, containerPath: string, tar: NodeJS.ReadableStream): Promise<void> {
    return this.c.call(`copy files into the sandbox at ${containerPath}`, async (docker) => {
      await docker.getContainer(id).putArchive(tar, { path: containerPath });
    });
  }

  getArchive(id: string, containerPath: string): Promise<NodeJS.ReadableStream> {
    return this.c.call(`copy files out of the sandbox at ${containerPath}`, (docker) => docker.getContainer(id).getArchive({ path: containerPath }));
  }
}

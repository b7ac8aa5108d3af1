/**
 * What project environments need of the engine (sandbox/ and environment/ never see dockerode):
 * a Dockerfile build from a folder's files with no more network than the profile allows and no
 * registry credentials, a container committed to a local image, and images found, measured and
 * removed by their labels. Everything goes through the Engine API, so a remote engine builds
 * on itself.
 */
import type Docker from 'dockerode';
import { BerthError } from '../../../shared/errors.js';
import { engineMessage, isUnreachable } from './engineErrors.js';
import type { PullProgress } from './engineInterface.js';

export interface EnvironmentBuild {
  /** The build context on this computer, and the files of it to send (.dockerignore already applied). */
  contextDir: string;
  files: string[];
  /** The Dockerfile's path inside the context, posix. */
  dockerfile: string;
  tag: string;
  buildArgs: Record<string, string>;
  target: string | null;
  /** 'none', or the network the build's RUN steps join (never 'host'). */
  networkMode: string;
  labels: Record<string, string>;
}

export interface ImageFacts {
  id: string;
  tags: string[];
  /** Seconds since the epoch, as the engine reports it. */
  created: number;
  size: number;
  labels: Record<string, string>;
}

export interface EnvironmentImageOps {
  build(request: EnvironmentBuild, onProgress: (p: PullProgress) => void): Promise<string>;
  /** Commits a container to a local image: `changes` are Dockerfile lines (ENV, LABEL) applied to it. */
  commit(containerId: string, repo: string, tag: string, changes: string[]): Promise<string>;
  inspect(ref: string): Promise<ImageFacts | null>;
  find(labels: Record<string, string>): Promise<ImageFacts[]>;
  remove(ref: string): Promise<void>;
  /** A file of an image, read from a container that is created and never started (no code of the image runs). */
  readFile(image: string, file: string, labels: Record<string, string>): Promise<string | null>;
}

type Call = <T>(action: string, run: (docker: Docker) => Promise<T>) => Promise<T>;

/** How much of a failed build's output the error keeps: the failing step's last lines. */
const FAILED_LINES = 40;

export function environmentImageOps(call: Call): EnvironmentImageOps {
  return {
    build: (request, onProgress) => call(`build the environment image ${request.tag}`, (docker) => build(docker, request, onProgress)),
    commit: (containerId, repo, tag, changes) =>
      call(`save the prepared environment ${repo}:${tag}`, async (docker) => {
        // Not paused: the chat's terminals, port relays and shell keep exec'ing into this container,
        // and an exec that reaches a frozen container (cgroup v1 freezer) waits in runc while holding
        // the engine's lock on it, so the commit's own unpause never comes. Seen here: containers
        // left "Up … (Paused)" for 20 minutes with every `docker rmi` and `docker unpause` hung until
        // the freezer was thawed by hand. The create-time commands have ended when this runs.
        const answer = (await docker.getContainer(containerId).commit({ repo, tag, pause: false, changes })) as { Id?: string };
        return answer.Id ?? '';
      }),
    inspect: (ref) =>
      call(`read the image ${ref}`, async (docker) => {
        try {
          const i = await docker.getImage(ref).inspect();
          return { id: i.Id, tags: i.RepoTags ?? [], created: Math.floor(Date.parse(i.Created) / 1000), size: i.Size, labels: i.Config?.Labels ?? {} };
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode === 404) return null;
          throw error;
        }
      }),
    find: (labels) =>
      call('list the prepared environments', async (docker) => {
        // An empty value asks only that the label be there.
        const filters = JSON.stringify({ label: Object.entries(labels).map(([k, v]) => (v ? `${k}=${v}` : k)) });
        const list = await docker.listImages({ filters });
        return list.map((i) => ({ id: i.Id, tags: (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>'), created: i.Created, size: i.Size, labels: i.Labels ?? {} }));
      }),
    remove: (ref) =>
      call(`remove the image ${ref}`, async (docker) => {
        try {
          await docker.getImage(ref).remove();
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode !== 404) throw error;
        }
      }),
    readFile: (image, file, labels) =>
      call(`read ${file} in the image ${image}`, async (docker) => {
        const c = await docker.createContainer({ Image: image, Cmd: ['/nonexistent'], Labels: labels, NetworkDisabled: true, HostConfig: { NetworkMode: 'none' } });
        try {
          const stream = await c.getArchive({ path: file });
          const chunks: Buffer[] = [];
          for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
          return firstTarFile(Buffer.concat(chunks));
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode === 404) return null;
          throw error;
        } finally {
          await c.remove({ force: true }).catch(() => undefined);
        }
      }),
  };
}

/** The content of a tar archive's first regular file (a `docker cp` of one file); null when it holds none. */
export function firstTarFile(tar: Buffer): string | null {
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return null;
    const size = parseInt(header.subarray(124, 136).toString('ascii').replace(/\0.*$/, '').trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 48);
    if (type === '0' || type === '\0') return tar.subarray(at + 512, at + 512 + size).toString('utf8');
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return null;
}

async function build(docker: Docker, request: EnvironmentBuild, onProgress: (p: PullProgress) => void): Promise<string> {
  if (request.networkMode === 'host') throw new BerthError('invalid_request', 'A build never uses the host network.');
  const lines: string[] = [];
  let stepStart = 0;
  let failure: string | null = null;
  let imageId = '';
  try {
    // No authconfig: the build never gets the user's registry credentials.
    const stream = await docker.buildImage(
      { context: request.contextDir, src: request.files },
      {
        t: request.tag,
        dockerfile: request.dockerfile,
        buildargs: request.buildArgs,
        ...(request.target ? { target: request.target } : {}),
        networkmode: request.networkMode,
        labels: request.labels,
        rm: true,
        forcerm: true,
      },
    );
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(err) : resolve()),
        (event: { stream?: string; status?: string; error?: string; aux?: { ID?: string } }) => {
          if (event.aux?.ID) imageId = event.aux.ID;
          if (event.error) failure = event.error.trim();
          for (const raw of (event.stream ?? event.status ?? '').split('\n')) {
            const line = raw.trimEnd();
            if (!line.trim()) continue;
            const step = /^Step (\d+)\/(\d+) : (.*)$/.exec(line.trim());
            if (step) {
              stepStart = lines.length;
              onProgress({ message: `Step ${step[1]}/${step[2]}: ${(step[3] ?? '').slice(0, 120)}`, fraction: (Number(step[1]) - 1) / Number(step[2]) });
            } else if (!line.trim().startsWith('--->') && !line.startsWith('Removing intermediate')) {
              onProgress({ message: line.slice(0, 200), fraction: null });
            }
            lines.push(line);
          }
        },
      );
    });
  } catch (error) {
    if (isUnreachable(error)) throw error;
    failure = engineMessage(error);
  }
  if (failure !== null) {
    const step = lines.slice(stepStart).slice(-FAILED_LINES).join('\n');
    throw new BerthError('image_unavailable', `The project's Dockerfile did not build: ${failure}${step ? `\n${step}` : ''}`, {
      hint: request.networkMode === 'none'
        ? "The profile's egress is \"none\", so the build has no network: a step that downloads fails. Use a profile whose allowlist names the hosts it needs, then Rebuild."
        : 'Fix the failing step in the Dockerfile (its output is above), then choose Rebuild.',
    });
  }
  onProgress({ message: `Built ${request.tag}`, fraction: 1 });
  return imageId;
}

/** Images: look up, pull with progress, build through the Engine API, list, export and load. */
import Docker from 'dockerode';
import { BerthError } from '../../../shared/errors.js';
import { engineMessage, isUnreachable, pullFailed, statusOf } from './engineErrors.js';
import type { BuildRequest, PullProgress } from './engineInterface.js';
import type { DockerCall } from './dockerCall.js';
import { imageIdOf } from './imageInfo.js';



export class DockerImages {
  constructor(private readonly c: DockerCall) {}

  hasImage(ref: string): Promise<boolean> {
    return this.c.call(
      `look up the image ${ref}`,
      async (docker) => {
        await docker.getImage(ref).inspect();
        return true;
      },
      (error) => (statusOf(error) === 404 ? { value: false } : undefined),
    );
  }

  imageId(ref: string): Promise<string | null> {
    return this.c.call(`look up the image ${ref}`, (docker) => imageIdOf(docker, ref), (error) => (statusOf(error) === 404 ? { value: null } : undefined));
  }

  pullImage(ref: string, onProgress: (p: PullProgress) => void): Promise<void> {
    const layers = new Map<string, { current: number; total: number }>();
    const pull = async (docker: Docker) => {
      const stream = await docker.pull(ref);
      await new Promise<void>((resolve, reject) => {
        docker.modem.followProgress(
          stream,
          (err: Error | null) => (err ? reject(err) : resolve()),
          (event: { id?: string; status?: string; progressDetail?: { current?: number; total?: number }; error?: string }) => {
            if (event.error) return;
            const layer = event.id ? layers.get(event.id) : undefined;
            if (event.id && event.progressDetail?.total && event.status === 'Downloading') {
              layers.set(event.id, { current: event.progressDetail.current ?? 0, total: event.progressDetail.total });
            } else if (layer && /^(Download complete|Pull complete|Already exists)/.test(event.status ?? '')) {
              layer.current = layer.total;
            }
            let current = 0;
            let total = 0;
            for (const l of layers.values()) {
              current += l.current;
              total += l.total;
            }
            onProgress({ message: `${event.status ?? 'Pulling'}${event.id ? ` ${event.id}` : ''}`, fraction: total ? Math.min(1, current / total) : null });
          },
        );
      });
      onProgress({ message: `Downloaded ${ref}`, fraction: 1 });
    };
    return this.c.call(`download the image ${ref}`, pull, (error) => {
      if (isUnreachable(error)) return undefined;
      throw pullFailed(ref, error);
    });
  }

  buildImage(request: BuildRequest, onProgress: (p: PullProgress) => void): Promise<void> {
    return this.c.call(`build the image ${request.tag}`, async (docker) => {
      let failure: string | null = null;
      try {
        const stream = await docker.buildImage(
          { context: request.contextDir, src: ['Dockerfile', ...request.files] },
          {
            t: request.tag, rm: true, forcerm: true,
            ...(request.networkMode ? { networkmode: request.networkMode } : {}),
            ...(request.buildArgs ? { buildargs: request.buildArgs } : {}),
          },
        );
        await new Promise<void>((resolve, reject) => {
          docker.modem.followProgress(
            stream,
            (err: Error | null) => (err ? reject(err) : resolve()),
            (event: { stream?: string; status?: string; error?: string }) => {
              if (event.error) failure = event.error.trim();
              const line = (event.stream ?? event.status ?? '').trim();
              // "Step 3/6 : RUN …" lines carry the build's own measure of progress.
              const step = /^Step (\d+)\/(\d+) : (.*)$/.exec(line);
              if (step) onProgress({ message: `Step ${step[1]}/${step[2]}: ${(step[3] ?? '').slice(0, 120)}`, fraction: (Number(step[1]) - 1) / Number(step[2]) });
              else if (line && !line.startsWith('--->')) onProgress({ message: line.slice(0, 160), fraction: null });
            },
          );
        });
      } catch (error) {
        if (isUnreachable(error)) throw error;
        failure = engineMessage(error);
      }
      if (failure !== null) {
        throw new BerthError('image_unavailable', `Docker could not build the image ${request.tag}: ${failure}`, {
          hint: 'Check that Docker is healthy (docker info) and try again.',
        });
      }
      onProgress({ message: `Built ${request.tag}`, fraction: 1 });
    });
  }

  listImageTags(): Promise<string[]> {
    return this.c.call('list images', async (docker) => {
      const images = await docker.listImages();
      const tags = images.flatMap((i) => i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
      return [...new Set(tags)].sort();
    });
  }

  platform(): Promise<{ os: string; arch: string }> {
    return this.c.call('answer', async (docker) => {
      const v = await docker.version();
      return { os: v.Os, arch: v.Arch };
    });
  }

  exportImage(tag: string): Promise<NodeJS.ReadableStream> {
    return this.c.call(`export the image ${tag}`, (docker) => docker.getImage(tag).get(), (error) => {
      if (statusOf(error) !== 404) return undefined;
      throw new BerthError('image_unavailable', `Docker could not export the image ${tag}: ${engineMessage(error)}`, { hint: 'Check the image name and try again.' });
    });
  }

  loadImage(tar: NodeJS.ReadableStream): Promise<void> {
    return this.c.call('load an image', async (docker) => {
      const answer = await docker.loadImage(tar, { quiet: true });
      // The engine streams its progress; a failed load is an error line in it.
      const text = await new Promise<string>((resolve, reject) => {
        let out = '';
        answer.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
        answer.on('end', () => resolve(out));
        answer.on('error', reject);
      });
      const failure = /"error(?:Detail)?"\s*:\s*"([^"]+)"/.exec(text);
      if (failure) throw new Error(failure[1]);
    });
  }
}

/** What the engine says about one image (its id): prepared images are keyed by it (sandbox/setupImage.ts). */
import type Docker from 'dockerode';

export async function imageIdOf(docker: Docker, ref: string): Promise<string> {
  const info = (await docker.getImage(ref).inspect()) as { Id: string };
  return info.Id;
}

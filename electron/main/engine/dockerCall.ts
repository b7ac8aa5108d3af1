/** What the Docker areas (images, networks, containers, exec) share of one engine client. */
import type Docker from 'dockerode';
import type { EngineKind } from './engineKind.js';
import type { LibpodDial } from './podmanNetworks.js';

/** What a call makes of an engine error it expects: a result (`{ value }`) or nothing (map it as usual). */
export type Expected<T> = (error: unknown) => { value: T } | undefined;

export interface DockerCall {
  readonly endpointLabel: string;
  /** Runs one Docker call with errors mapped in one place (DockerEngine.call). */
  call<T>(action: string, run: (docker: Docker) => Promise<T>, expected?: Expected<T>): Promise<T>;
  kind(): Promise<EngineKind>;
  /** Podman's own API (libpod), for what its Docker-compatible one does not carry. */
  libpod(docker: Docker): LibpodDial;
}

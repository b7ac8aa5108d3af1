/** Which Docker engine to talk to: the one the user's own Docker tools use. Pure. */
import { BerthError } from '../../../shared/errors.js';

export type EngineEndpoint =
  | { kind: 'socket'; socketPath: string }
  | { kind: 'tcp'; host: string; port: number; tls: boolean; tlsFiles?: { ca: string; cert: string; key: string } }
  | { kind: 'ssh'; host: string; identityFile?: string | null };

export interface EndpointEnv {
  DOCKER_HOST?: string | undefined;
  DOCKER_TLS_VERIFY?: string | undefined;
}

/**
 * DOCKER_HOST first, then the host of the Docker CLI's current context (`docker context use`,
 * as Docker Desktop and Colima set it up), then the platform's default socket.
 */
export function resolveEngineEndpoint(
  env: EndpointEnv,
  platform: NodeJS.Platform,
  homeDir: string,
  exists: (p: string) => boolean,
  contextHost: string | null = null,
): EngineEndpoint {
  const fromEnv = env.DOCKER_HOST?.trim();
  const raw = fromEnv || contextHost?.trim();
  const source = fromEnv ? 'DOCKER_HOST is set to' : 'The current Docker context points at';
  if (raw) {
    if (raw.startsWith('unix://')) return { kind: 'socket', socketPath: raw.slice('unix://'.length) };
    if (raw.startsWith('npipe://')) return { kind: 'socket', socketPath: raw.slice('npipe:'.length).replace(/\//g, '\\') };
    if (raw.startsWith('ssh://')) return { kind: 'ssh', host: raw };
    // Parsed by hand: URL() drops a port that is its scheme's default (80 for http).
    const match = /^(tcp|https?):\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/.exec(raw);
    if (!match) {
      throw new BerthError('engine_unreachable', `${source} "${raw}", which is not a unix://, tcp://, npipe:// or ssh:// address.`, {
        hint: fromEnv ? 'Fix or unset DOCKER_HOST and start Berth again.' : 'Switch contexts (docker context use default) and start Berth again.',
      });
    }
    // Like Docker's own CLI: any non-empty DOCKER_TLS_VERIFY turns TLS on.
    const tls = Boolean(env.DOCKER_TLS_VERIFY) || match[1] === 'https';
    const host = (match[2] as string).replace(/^\[|\]$/g, '');
    return { kind: 'tcp', host, port: match[3] ? Number(match[3]) : tls ? 2376 : 2375, tls };
  }
  if (platform === 'win32') return { kind: 'socket', socketPath: '\\\\.\\pipe\\docker_engine' };
  const candidates =
    platform === 'darwin'
      ? ['/var/run/docker.sock', `${homeDir}/.docker/run/docker.sock`, `${homeDir}/.colima/default/docker.sock`]
      : ['/var/run/docker.sock', '/run/docker.sock', `${homeDir}/.docker/desktop/docker.sock`];
  const found = candidates.find(exists);
  return { kind: 'socket', socketPath: found ?? (candidates[0] as string) };
}

/** Paths of Docker sockets on this host, for the mount deny-list. */
export function dockerSocketCandidates(env: EndpointEnv, homeDir: string, contextHost: string | null = null): string[] {
  const list = [
    '/var/run/docker.sock',
    '/run/docker.sock',
    `${homeDir}/.docker/run/docker.sock`,
    `${homeDir}/.docker/desktop/docker.sock`,
    `${homeDir}/.colima/default/docker.sock`,
    '/run/user',
  ];
  for (const raw of [env.DOCKER_HOST?.trim(), contextHost?.trim()]) {
    if (raw?.startsWith('unix://')) list.unshift(raw.slice('unix://'.length));
  }
  return list;
}

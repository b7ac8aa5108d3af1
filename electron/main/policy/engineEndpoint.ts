/** Which Docker engine to talk to: the one the user's own Docker tools use. Pure. */
export type EngineEndpoint =
  | { kind: 'socket'; socketPath: string }
  | { kind: 'tcp'; host: string; port: number; tls: boolean }
  | { kind: 'ssh'; host: string };

export interface EndpointEnv {
  DOCKER_HOST?: string | undefined;
  DOCKER_TLS_VERIFY?: string | undefined;
}

export function resolveEngineEndpoint(
  env: EndpointEnv,
  platform: NodeJS.Platform,
  homeDir: string,
  exists: (p: string) => boolean,
): EngineEndpoint {
  const raw = env.DOCKER_HOST?.trim();
  if (raw) {
    if (raw.startsWith('unix://')) return { kind: 'socket', socketPath: raw.slice('unix://'.length) };
    if (raw.startsWith('npipe://')) return { kind: 'socket', socketPath: raw.slice('npipe:'.length).replace(/\//g, '\\') };
    if (raw.startsWith('ssh://')) return { kind: 'ssh', host: raw };
    const url = new URL(raw.replace(/^tcp:/, 'http:'));
    const tls = env.DOCKER_TLS_VERIFY === '1' || url.protocol === 'https:';
    return { kind: 'tcp', host: url.hostname, port: Number(url.port || (tls ? 2376 : 2375)), tls };
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
export function dockerSocketCandidates(env: EndpointEnv, homeDir: string): string[] {
  const list = [
    '/var/run/docker.sock',
    '/run/docker.sock',
    `${homeDir}/.docker/run/docker.sock`,
    `${homeDir}/.docker/desktop/docker.sock`,
    `${homeDir}/.colima/default/docker.sock`,
    '/run/user',
  ];
  const raw = env.DOCKER_HOST?.trim();
  if (raw?.startsWith('unix://')) list.unshift(raw.slice('unix://'.length));
  return list;
}

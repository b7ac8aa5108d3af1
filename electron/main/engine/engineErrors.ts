/** Turns what dockerode throws into errors a user can act on. Raw errors never leave engine/. */
import { BerthError } from '../../../shared/errors.js';
import { classifyPullFailure } from '../policy/baseImage.js';

interface DockerodeError {
  statusCode?: number;
  code?: string;
  reason?: string;
  json?: { message?: string } | null;
  message?: string;
}

export function engineMessage(error: unknown): string {
  const e = error as DockerodeError;
  if (e?.json?.message) return e.json.message.trim();
  // docker-modem puts the engine's own words after its status text when the body is not JSON:
  // "(HTTP code 500) server error - Get …: dial tcp …". The status text alone says nothing.
  const detail = /^\(HTTP code \d+\) [^-]*- ([\s\S]+)$/.exec(e?.message ?? '');
  if (detail?.[1]?.trim()) return detail[1].trim();
  return (e?.reason ?? e?.message ?? String(error)).trim();
}

export function statusOf(error: unknown): number | undefined {
  return (error as DockerodeError)?.statusCode;
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);

export function isUnreachable(error: unknown): boolean {
  const code = (error as DockerodeError)?.code;
  return typeof code === 'string' && UNREACHABLE_CODES.has(code);
}

export function unreachableError(endpoint: string, cause: unknown): BerthError {
  const code = (cause as DockerodeError)?.code;
  const why = code === 'EACCES' ? 'Berth is not allowed to use it (permission denied)' : 'nothing answered';
  return new BerthError('engine_unreachable', `The Docker engine at ${endpoint} cannot be reached: ${why}.`, {
    hint: code === 'EACCES' ? 'Add your user to the docker group (then log in again), or point DOCKER_HOST at an engine you may use.' : whatToStart(endpoint),
    cause,
  });
}

/** How to start Podman's Docker-compatible API, rootful or a user's: said wherever Podman's socket is missing or silent. */
export const START_PODMAN = "Start Podman's API service (systemctl start podman.socket, or systemctl --user start podman.socket)";

/** What to check when nothing answers, by the kind of engine `describeEndpoint` labelled: starting local Docker does nothing for a remote one. */
function whatToStart(endpoint: string): string {
  const again = 'Berth reconnects by itself.';
  if (endpoint.startsWith('ssh://')) {
    const url = new URL(endpoint);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = url.port || '22';
    const login = `${port === '22' ? '' : `-p ${port} `}${url.username ? `${decodeURIComponent(url.username)}@` : ''}${host}`;
    return `Check that ${host} is up and its SSH server listens on port ${port}, and that Docker runs there (ssh ${login} docker info); ${again}`;
  }
  const tcp = /^(tcp|https):\/\/(.+)$/.exec(endpoint);
  if (tcp) {
    return `Check that the engine listens on ${tcp[2]} and that this computer can reach it (docker -H tcp://${tcp[2]}${tcp[1] === 'https' ? ' --tlsverify' : ''} info); ${again}`;
  }
  if (/podman/i.test(endpoint)) return `${START_PODMAN} and try again; ${again}`;
  return `Start Docker (Docker Desktop, Colima, or the docker service) and try again; ${again}`;
}

/** Wraps an engine failure: unreachable engines get their own error; others name the action. */
export function toBerthError(error: unknown, action: string, endpoint: string): BerthError {
  if (error instanceof BerthError) return error;
  if (isUnreachable(error)) return unreachableError(endpoint, error);
  return new BerthError('container_failed', `Docker could not ${action}: ${engineMessage(error)}`, {
    hint: 'Check that Docker is healthy (docker info) and try again.',
    cause: error,
  });
}

/**
 * A failed download, told apart: the registry has no such image (a typo, a private image), or
 * no registry answered (offline, a proxy, an air-gapped engine). Both say what to do next.
 */
export function pullFailed(ref: string, error: unknown): BerthError {
  const message = engineMessage(error);
  const kind = classifyPullFailure(message);
  if (kind === 'unreachable') {
    return new BerthError('registry_unreachable', `The image ${ref} is not on this computer, and its registry cannot be reached to download it (${message}).`, {
      hint: "Check your connection or proxy, or pick an image this computer already has in the profile's Image field (Berth's own base image works offline).",
      cause: error,
    });
  }
  if (kind === 'not_found') {
    return new BerthError('image_unavailable', `The image ${ref} does not exist in its registry, or you may not download it (${message}).`, {
      hint: "Check the image's name and tag, or log in to its registry (docker login), or pick an image this computer already has in the profile's Image field.",
      cause: error,
    });
  }
  return new BerthError('image_unavailable', `The image ${ref} is not on this computer and could not be downloaded: ${message}`, {
    hint: "Check the image name and your connection, or build or load the image locally (docker build / docker load), or pick an image this computer already has in the profile's Image field.",
    cause: error,
  });
}

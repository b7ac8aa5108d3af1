/** Turns what dockerode throws into errors a user can act on. Raw errors never leave engine/. */
import { BerthError } from '../../../shared/errors.js';

interface DockerodeError {
  statusCode?: number;
  code?: string;
  reason?: string;
  json?: { message?: string } | null;
  message?: string;
}

export function engineMessage(error: unknown): string {
  const e = error as DockerodeError;
  return (e?.json?.message ?? e?.reason ?? e?.message ?? String(error)).trim();
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
    hint:
      code === 'EACCES'
        ? 'Add your user to the docker group (then log in again), or point DOCKER_HOST at an engine you may use.'
        : 'Start Docker (Docker Desktop, Colima, or the docker service) and try again; Berth reconnects by itself.',
    cause,
  });
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

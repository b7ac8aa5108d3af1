/**
 * Where an engine is and how to reach it: a socket, tcp (TLS files from DOCKER_CERT_PATH, the
 * docker command's folder, or named one by one) or ssh:// (ssh2, the host key checked first).
 */
import Docker from 'dockerode';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { EngineEndpoint } from '../policy/engineEndpoint.js';
import { sshAgent } from './sshTransport.js';
import { engineMessage } from './engineErrors.js';

export interface DockerEngineOptions {
  /**
   * The folder holding ca.pem, cert.pem and key.pem for a TLS tcp endpoint. By default, like
   * the docker command: DOCKER_CERT_PATH, otherwise ~/.docker.
   */
  certPath?: string;
  /**
   * The known_hosts files an ssh:// engine's host key must be listed in; by default, like `ssh`:
   * ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts.
   */
  knownHostsFiles?: string[];
}

const TLS_FILES = ['ca.pem', 'cert.pem', 'key.pem'] as const;

/** The client's TLS material, or the error every call will report when it cannot be read. */
function readTlsFiles(certPath: string, label: string): { ca: Buffer; cert: Buffer; key: Buffer } | BerthError {
  const read: Buffer[] = [];
  const missing: string[] = [];
  let cause: unknown;
  for (const file of TLS_FILES) {
    try {
      read.push(fs.readFileSync(path.join(certPath, file)));
    } catch (error) {
      missing.push(file);
      cause ??= error;
    }
  }
  if (missing.length > 0) {
    return new BerthError(
      'engine_unreachable',
      `The Docker engine at ${label} needs TLS, but Berth cannot read ${missing.join(', ')} in ${certPath}.`,
      {
        hint: 'Put the TLS certificates (ca.pem, cert.pem, key.pem) there, or set DOCKER_CERT_PATH to the folder that holds them, as for the docker command; then start Berth again.',
        cause,
      },
    );
  }
  const [ca, cert, key] = read as [Buffer, Buffer, Buffer];
  return { ca, cert, key };
}

/** TLS files named one by one (a profile's tcp engine, a context's own files). */
function readNamedTlsFiles(files: { ca: string; cert: string; key: string }, label: string): { ca: Buffer; cert: Buffer; key: Buffer } | BerthError {
  try {
    return { ca: fs.readFileSync(files.ca), cert: fs.readFileSync(files.cert), key: fs.readFileSync(files.key) };
  } catch (error) {
    return new BerthError('engine_unreachable', `The Docker engine at ${label} needs TLS, but Berth cannot read its files: ${engineMessage(error)}`, {
      hint: "Check the CA, certificate and key paths in the profile's engine settings.",
      cause: error,
    });
  }
}

function endpointOptions(endpoint: EngineEndpoint, tlsFiles: { ca: Buffer; cert: Buffer; key: Buffer } | null, knownHostsFiles: string[]): Docker.DockerOptions {
  switch (endpoint.kind) {
    case 'socket':
      return { socketPath: endpoint.socketPath };
    case 'tcp':
      return { host: endpoint.host, port: endpoint.port, protocol: endpoint.tls ? 'https' : 'http', ...(tlsFiles ?? {}) };
    case 'ssh':
      return sshOptions(endpoint, knownHostsFiles);
  }
}

/** ssh://user@host:port through ssh2 (docker-modem's SSH transport), with a key file or the agent. */
function sshOptions(endpoint: Extract<EngineEndpoint, { kind: 'ssh' }>, knownHostsFiles: string[]): Docker.DockerOptions {
  const url = new URL(endpoint.host);
  const agent = sshAgent({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 22,
    username: decodeURIComponent(url.username),
    knownHostsFiles,
    ...(endpoint.identityFile
      ? { privateKey: fs.readFileSync(endpoint.identityFile) }
      : process.env.SSH_AUTH_SOCK
        ? { agent: process.env.SSH_AUTH_SOCK }
        : {}),
  });
  // Plain HTTP over the SSH channels: the agent does the transport.
  return { protocol: 'http', host: 'localhost', port: 80, agent } as Docker.DockerOptions;
}

export function describeEndpoint(endpoint: EngineEndpoint): string {
  switch (endpoint.kind) {
    case 'socket':
      return endpoint.socketPath;
    case 'tcp':
      return `${endpoint.tls ? 'https' : 'tcp'}://${endpoint.host}:${endpoint.port}`;
    case 'ssh':
      return endpoint.host.replace(/\/$/, '');
  }
}

/** The TLS folder the docker command would use: DOCKER_CERT_PATH, otherwise ~/.docker. */
function certPathFor(options: DockerEngineOptions): string {
  return options.certPath ?? (process.env.DOCKER_CERT_PATH || path.join(os.homedir(), '.docker'));
}

/**
 * The engine for an endpoint: a DockerEngine, or, when a TLS endpoint's files cannot be read,
 * the unavailable engine whose every call says where they were looked for (the app still opens).
/** TLS material an endpoint needs: read, or the error every call of its engine will report. */
export function tlsFilesFor(endpoint: EngineEndpoint, options: DockerEngineOptions): { ca: Buffer; cert: Buffer; key: Buffer } | BerthError | null {
  if (endpoint.kind !== 'tcp' || !endpoint.tls) return null;
  const label = describeEndpoint(endpoint);
  return endpoint.tlsFiles ? readNamedTlsFiles(endpoint.tlsFiles, label) : readTlsFiles(certPathFor(options), label);
}

/**
 * The dockerode client for an endpoint, and why it cannot be used at all (not thrown: callers
 * build the engine at start-up and expect its calls to fail).
 */
export function dockerClientFor(endpoint: EngineEndpoint, options: DockerEngineOptions): { docker: Docker; unusable: BerthError | null } {
  const label = describeEndpoint(endpoint);
  const tls = tlsFilesFor(endpoint, options);
  let unusable: BerthError | null = tls instanceof BerthError ? tls : null;
  const tlsFiles = tls instanceof BerthError ? null : tls;
  let docker: Docker | null = null;
  try {
    docker = new Docker(endpointOptions(endpoint, tlsFiles, options.knownHostsFiles ?? [path.join(os.homedir(), '.ssh', 'known_hosts'), '/etc/ssh/ssh_known_hosts']));
  } catch (error) {
    unusable ??= new BerthError('engine_unreachable', `Berth cannot use the engine at ${label}: ${engineMessage(error)}`, {
      hint: "Check the engine's address and key file in the profile's settings.",
      cause: error,
    });
  }
  return { docker: docker ?? new Docker({ socketPath: '/nonexistent' }), unusable };
}

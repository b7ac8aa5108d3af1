/**
 * From a profile's engine setting to the endpoint Berth talks to and how it is named. Pure:
 * the Docker config's contexts are read by the caller (engine/dockerContext.ts) and passed in.
 */
import type { EngineRef, EngineSetting } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { resolveEngineEndpoint, type EndpointEnv, type EngineEndpoint } from './engineEndpoint.js';

export interface ContextInfo {
  host: string;
  /** The context's own TLS files (ca.pem, cert.pem, key.pem under contexts/tls), when it has them. */
  tlsFiles: { ca: string; cert: string; key: string } | null;
}

export interface EngineChoiceEnv {
  env: EndpointEnv;
  platform: NodeJS.Platform;
  homeDir: string;
  exists: (p: string) => boolean;
  /** The current context's host (DOCKER_CONTEXT or config.json's currentContext), or null. */
  currentContextHost: string | null;
  /** A context by name, or null when the Docker config has no such context. */
  context: (name: string) => ContextInfo | null;
}

export interface EngineChoice {
  endpoint: EngineEndpoint;
  ref: EngineRef;
}

/** An endpoint whose files are not this computer's: nothing local may be bound there. */
export function isRemoteEndpoint(endpoint: EngineEndpoint): boolean {
  return endpoint.kind !== 'socket';
}

/** One id per distinct endpoint, so two profiles on the same engine share one connection. */
export function endpointId(endpoint: EngineEndpoint): string {
  switch (endpoint.kind) {
    case 'socket':
      return `unix://${endpoint.socketPath}`;
    case 'tcp':
      return `${endpoint.tls ? 'tcp+tls' : 'tcp'}://${endpoint.host}:${endpoint.port}${endpoint.tlsFiles ? `#${endpoint.tlsFiles.cert}` : ''}`;
    case 'ssh':
      return `${endpoint.host.replace(/\/$/, '')}${endpoint.identityFile ? `#${endpoint.identityFile}` : ''}`;
  }
}

function label(endpoint: EngineEndpoint): string {
  switch (endpoint.kind) {
    case 'socket':
      return endpoint.socketPath;
    case 'tcp':
      return `tcp://${endpoint.host}:${endpoint.port}${endpoint.tls ? ' (TLS)' : ''}`;
    case 'ssh':
      return endpoint.host.replace(/\/$/, '');
  }
}

function parseTcp(url: string): { host: string; port: number } {
  const match = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/.exec(url) as RegExpExecArray;
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

export function chooseEngine(setting: EngineSetting, e: EngineChoiceEnv): EngineChoice {
  const made = (endpoint: EngineEndpoint, kind: EngineRef['kind'], text = label(endpoint)): EngineChoice => ({
    endpoint,
    ref: { id: endpointId(endpoint), kind, label: text, remote: isRemoteEndpoint(endpoint) },
  });
  switch (setting.kind) {
    case 'default':
      return made(resolveEngineEndpoint(e.env, e.platform, e.homeDir, e.exists, e.currentContextHost), 'default');
    case 'context': {
      if (setting.name === 'default') return made(resolveEngineEndpoint({}, e.platform, e.homeDir, e.exists, null), 'context', 'default');
      const context = e.context(setting.name);
      if (!context) {
        throw new BerthError('engine_unreachable', `The Docker context "${setting.name}" is not in your Docker configuration.`, {
          hint: 'List contexts with `docker context ls`, or pick another engine for this profile.',
        });
      }
      const endpoint = resolveEngineEndpoint({ DOCKER_TLS_VERIFY: context.tlsFiles ? '1' : undefined }, e.platform, e.homeDir, e.exists, context.host);
      const withTls = endpoint.kind === 'tcp' && context.tlsFiles ? { ...endpoint, tlsFiles: context.tlsFiles } : endpoint;
      return made(withTls, 'context', `${setting.name} (${label(withTls)})`);
    }
    case 'ssh':
      return made({ kind: 'ssh', host: setting.url, identityFile: setting.identityFile }, 'ssh');
    case 'tcp':
      return made({ kind: 'tcp', ...parseTcp(setting.url), tls: true, tlsFiles: setting.tls }, 'tcp');
    case 'podman':
      return made({ kind: 'socket', socketPath: setting.socketPath }, 'podman', `podman ${setting.socketPath}`);
  }
}

/**
 * Where a profile's sandboxes run: which container engine its chats use. Written once here
 * so main, the renderer and the API docs agree.
 */
import { z } from 'zod';

const AbsolutePath = z.string().min(1).max(4096).startsWith('/', 'Give an absolute path.');

export const EngineSetting = z.discriminatedUnion('kind', [
  /** The engine the user's own `docker` command uses (DOCKER_HOST, the current context, the default socket). */
  z.object({ kind: z.literal('default') }).strict(),
  /** A Docker context by name, read from the user's Docker config as the docker CLI does. */
  z.object({ kind: z.literal('context'), name: z.string().trim().min(1).max(256) }).strict(),
  /** A Docker engine on another machine through SSH (the remote runs `docker system dial-stdio`). */
  z
    .object({
      kind: z.literal('ssh'),
      url: z.string().trim().regex(/^ssh:\/\/[^@\s/]+@[^\s/:]+(:\d{1,5})?\/?$/, 'An SSH engine is written ssh://user@host or ssh://user@host:port.'),
      /** A private key file; without one, the SSH agent (SSH_AUTH_SOCK) is used. */
      identityFile: AbsolutePath.nullable().default(null),
    })
    .strict(),
  /** A Docker engine over TCP with mutual TLS. */
  z
    .object({
      kind: z.literal('tcp'),
      url: z.string().trim().regex(/^tcp:\/\/[^\s/]+:\d{1,5}\/?$/, 'A TCP engine is written tcp://host:port.'),
      tls: z.object({ ca: AbsolutePath, cert: AbsolutePath, key: AbsolutePath }).strict(),
    })
    .strict(),
  /** Podman's Docker-compatible API on a unix socket (rootful /run/podman/podman.sock, or a user's). */
  z.object({ kind: z.literal('podman'), socketPath: AbsolutePath }).strict(),
]);
export type EngineSetting = z.infer<typeof EngineSetting>;
export type EngineKind = EngineSetting['kind'];

export const DEFAULT_ENGINE_SETTING: EngineSetting = { kind: 'default' };

/** Which engine a chat's sandbox runs on, for the status bar and the sandbox details. */
export const EngineRef = z.object({
  /** One per distinct endpoint: chats on the same endpoint share one connection and monitor. */
  id: z.string(),
  kind: z.enum(['default', 'context', 'ssh', 'tcp', 'podman']),
  /** Where it is, in words: a socket path, ssh://user@host, tcp://host:port, a context's name. */
  label: z.string(),
  /** The engine's files are not this computer's: folders are copied there, never bound. */
  remote: z.boolean(),
});
export type EngineRef = z.infer<typeof EngineRef>;

/** A Docker context as the docker CLI lists it (`docker context ls`), from the user's Docker config. */
export const DockerContextView = z.object({
  name: z.string(),
  /** Its engine's address (unix:///…, tcp://…, ssh://…), as the context names it. */
  host: z.string(),
  /** The CLI's current context (DOCKER_CONTEXT, or config.json's currentContext). */
  current: z.boolean(),
});
export type DockerContextView = z.infer<typeof DockerContextView>;

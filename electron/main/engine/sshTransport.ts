/**
 * ssh:// engines over one SSH connection per engine (ssh2, the library docker-modem uses),
 * each HTTP connection a `docker system dial-stdio` channel on it, as the docker CLI does.
 * docker-modem's own ssh transport opens a new SSH connection for every request (seconds each
 * here); this keeps one, and opens a new one by itself after it drops.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { Client, type ConnectConfig, type ServerHostKeyAlgorithm } from 'ssh2';
import { BerthError } from '../../../shared/errors.js';
import { checkHostKey, hostLookupName, knownKeyTypes, parseKnownHosts, type HostKeyVerdict, type KnownHostLine } from '../policy/knownHosts.js';

export interface SshTarget {
  host: string;
  port: number;
  username: string;
  privateKey?: Buffer;
  /** An SSH agent's socket (SSH_AUTH_SOCK) when no key file is given. */
  agent?: string;
  /** The known_hosts files the host's key must be listed in (read at each connection, as `ssh` does). */
  knownHostsFiles: string[];
}

/** The host-key algorithms ssh2 offers for each known_hosts key type (asked for first when known, as `ssh` does). */
const HOST_KEY_ALGORITHMS: Record<string, ServerHostKeyAlgorithm[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/** The known_hosts files' lines, read afresh for each connection: adding the key with `ssh` takes effect at the next try. */
function readKnownHosts(files: readonly string[]): KnownHostLine[] | BerthError {
  const read: { file: string; text: string }[] = [];
  for (const file of files) {
    try {
      read.push({ file, text: fs.readFileSync(file, 'utf8') });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue; // As ssh: a missing file lists nothing.
      return new BerthError('engine_unreachable', `Berth cannot read ${file} to check the SSH host's key (${code ?? String(error)}).`, {
        hint: 'Make the file readable by your user (or remove it), then try again.',
        cause: error,
      });
    }
  }
  return parseKnownHosts(read);
}

/** What the user is told when the host's key is not one known_hosts vouches for; Berth does not connect. */
function hostKeyRefusal(verdict: Exclude<HostKeyVerdict, { kind: 'known' }>, target: SshTarget): BerthError {
  const host = `${target.host}:${target.port}`;
  const login = `ssh ${target.port === 22 ? '' : `-p ${target.port} `}${target.username ? `${target.username}@` : ''}${target.host}`;
  const files = target.knownHostsFiles.join(' or ');
  switch (verdict.kind) {
    case 'unknown':
      return new BerthError('engine_unreachable', `The SSH host ${host} is not in your known_hosts (${files}), so Berth cannot tell that it is the machine you mean and did not connect.`, {
        hint: `Connect once with \`${login}\` to check and add its key, then try again.`,
      });
    case 'changed':
      return new BerthError(
        'engine_unreachable',
        `The SSH host ${host} offered a key that differs from the one in your known_hosts (${verdict.where}): someone may be intercepting the connection (a man-in-the-middle), or the host's key was replaced. Berth did not connect.`,
        {
          hint: `If you know the host's key changed, remove the old entry (\`ssh-keygen -R "${hostLookupName(target.host, target.port)}"\`), connect once with \`${login}\` to check and add the new key, then try again.`,
        },
      );
    case 'revoked':
      return new BerthError('engine_unreachable', `The SSH host ${host} offered a key that your known_hosts marks as revoked (${verdict.where}). Berth did not connect.`, {
        hint: "Ask the host's administrator for its current key; remove the @revoked line only if it is wrong.",
      });
  }
}

/** How long opening a channel may take (connecting included) before the request fails. */
const CHANNEL_TIMEOUT_MS = 30_000;

/** Typed as Node's own: connection failures carry the socket's code (ECONNREFUSED…). */
export function sshAgent(target: SshTarget): http.Agent {
  let ready: Promise<Client> | null = null;
  /** The channels open on each connection: they end with it, so no kept-alive request waits on a dead one. */
  const channels = new Map<Client, Set<Duplex>>();
  const connect = (): Promise<Client> => {
    ready ??= new Promise<Client>((resolve, reject) => {
      const known = readKnownHosts(target.knownHostsFiles);
      if (known instanceof BerthError) {
        ready = null;
        reject(known);
        return;
      }
      /** Why the host's key was refused: the error this attempt fails with, instead of ssh2's "Host denied". */
      let refused: BerthError | null = null;
      const client = new Client();
      client.once('ready', () => resolve(client));
      // After ready, errors end in 'close'; before it they fail this attempt.
      client.on('error', (error) => {
        ready = null;
        reject(refused ?? error);
      });
      client.once('close', () => {
        ready = null;
        for (const ch of channels.get(client) ?? []) ch.destroy(Object.assign(new Error(`The SSH connection to ${target.host}:${target.port} closed.`), { code: 'ECONNRESET' }));
        channels.delete(client);
      });
      const config: ConnectConfig = {
        host: target.host,
        port: target.port,
        username: target.username,
        readyTimeout: 15_000,
        keepaliveInterval: 5_000,
        keepaliveCountMax: 3,
        // As ssh with StrictHostKeyChecking: only a key known_hosts lists for this host (never an unknown or changed one).
        hostVerifier: (key: Buffer) => {
          const verdict = checkHostKey(known, target.host, target.port, key);
          if (verdict.kind === 'known') return true;
          refused = hostKeyRefusal(verdict, target);
          return false;
        },
        // Ask first for the key types known_hosts has for this host, so a host with several keys shows the known one.
        algorithms: { serverHostKey: { prepend: knownKeyTypes(known, target.host, target.port).flatMap((t) => HOST_KEY_ALGORITHMS[t] ?? []), append: [], remove: [] } },
        ...(target.privateKey ? { privateKey: target.privateKey } : {}),
        ...(target.agent ? { agent: target.agent } : {}),
      };
      client.connect(config);
    });
    return ready;
  };
  // Keep-alive: a dial-stdio channel serves request after request (each new one starts the remote docker CLI).
  const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 10_000 });
  (agent as unknown as { createConnection: unknown }).createConnection = (_options: unknown, done: (error: Error | null, socket?: Duplex) => void) => {
    let settled = false;
    const finish = (error: Error | null, socket?: Duplex) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done(error, socket);
    };
    // A connection that died without closing never answers: fail like a socket would.
    const timer = setTimeout(() => {
      void ready?.then((c) => c.end(), () => undefined);
      finish(Object.assign(new Error(`No answer from the SSH engine at ${target.host}:${target.port}.`), { code: 'ETIMEDOUT' }));
    }, CHANNEL_TIMEOUT_MS);
    connect().then(
      (client) =>
        client.exec('docker system dial-stdio', (error, channel) => {
          if (error) {
            // A broken connection: the next request opens a new one.
            client.end();
            finish(error);
            return;
          }
          const socket = channel as unknown as Duplex & Record<string, unknown>;
          const open = channels.get(client) ?? new Set<Duplex>();
          channels.set(client, open);
          open.add(socket);
          socket.once('close', () => open.delete(socket));
          // http may call these socket methods; a channel has no such knobs.
          for (const m of ['setKeepAlive', 'setNoDelay', 'setTimeout', 'ref', 'unref']) socket[m] ??= () => socket;
          finish(null, socket);
        }),
      (error: Error) => finish(error),
    );
    return undefined;
  };
  // Destroying the agent (Engine.close) ends the SSH connection too; the next request opens one.
  const destroy = agent.destroy.bind(agent);
  agent.destroy = () => {
    destroy();
    void ready?.then((c) => c.end(), () => undefined);
  };
  return agent;
}

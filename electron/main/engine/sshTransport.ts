/**
 * ssh:// engines over one SSH connection per engine (ssh2, the library docker-modem uses),
 * each HTTP connection a `docker system dial-stdio` channel on it, as the docker CLI does.
 * docker-modem's own ssh transport opens a new SSH connection for every request (seconds each
 * here); this keeps one, and opens a new one by itself after it drops.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { Client, type ConnectConfig } from 'ssh2';

export interface SshTarget {
  host: string;
  port: number;
  username: string;
  privateKey?: Buffer;
  /** An SSH agent's socket (SSH_AUTH_SOCK) when no key file is given. */
  agent?: string;
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
      const client = new Client();
      client.once('ready', () => resolve(client));
      // After ready, errors end in 'close'; before it they fail this attempt.
      client.on('error', (error) => {
        ready = null;
        reject(error);
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

/**
 * The fetch an HTTP MCP server's client (the SDK's StreamableHTTPClientTransport, in main) uses:
 * every connection is opened from inside the chat's sandbox by a relay process of the sandbox
 * user (`connect`, the same relay the Ports section uses), then carries HTTP/1.1 as routed by
 * policy/mcpHttpRoute (straight under 'open', the egress proxy under 'allowlist', refused under
 * 'none').
 *
 * Why not connect from main: main's network is this computer's, so a URL naming 127.0.0.1, the
 * LAN or a cloud metadata address would reach what the sandbox never may, and an allowlist would
 * not apply at all. Why not main to the proxy: the proxy sits on the sandbox's sealed network,
 * which this computer cannot reach on Docker Desktop or a remote engine; a relay in the sandbox
 * works wherever an exec does. What crosses the sandbox is only what the agent sends the server
 * and its answers (no key, header or file of the user's is added here), and the relay runs as
 * the sandbox user, never root.
 */
import http from 'node:http';
import { Readable, type Duplex } from 'node:stream';
import tls from 'node:tls';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { EgressMode } from '../../../../shared/contract.js';
import { mcpHttpRoute, type McpHttpRoute } from '../../policy/mcpHttpRoute.js';
import { REFUSED_HEADER } from '../../policy/egressRefusal.js';

/** A TCP connection from inside the chat's sandbox to host:port (its network rules apply). */
export type SandboxConnect = (host: string, port: number) => Promise<Duplex>;

/** A CONNECT answer's head is short; more than this is no proxy's answer. */
const MAX_HEAD = 16 * 1024;

export interface SandboxFetch {
  fetch: FetchLike;
  /** Ends the kept connections (their relays in the sandbox exit). */
  close(): void;
}

export function sandboxFetch(egress: EgressMode, connect: SandboxConnect): SandboxFetch {
  const agents = new Map<string, http.Agent>();
  const agentFor = (route: McpHttpRoute): http.Agent => {
    const key = JSON.stringify(route);
    let agent = agents.get(key);
    if (!agent) {
      // Kept alive: each new connection is a docker exec in the sandbox (tens of milliseconds).
      agent = new http.Agent({ keepAlive: true, maxFreeSockets: 2 });
      (agent as unknown as { createConnection: (o: unknown, cb: (error: Error | null, socket?: Duplex) => void) => undefined }).createConnection = (_o, cb) => {
        open(route, connect).then((s) => cb(null, s), (error: Error) => cb(error));
        return undefined;
      };
      agents.set(key, agent);
    }
    return agent;
  };

  const fetch: FetchLike = async (input, init) => {
    const url = new URL(String(input));
    const route = mcpHttpRoute(egress, url);
    if (!route.ok) throw new Error(route.message);
    const body = init?.body == null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer());
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    headers.host = url.host;
    if (body) headers['content-length'] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        {
          method: init?.method ?? 'GET',
          host: url.hostname,
          port: url.port || (url.protocol === 'https:' ? 443 : 80),
          path: route.absoluteUri ? url.href : `${url.pathname}${url.search}`,
          headers,
          agent: agentFor(route),
          ...(init?.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          const refused = route.absoluteUri ? res.headers[REFUSED_HEADER.toLowerCase()] : undefined;
          if (refused) {
            void text(res).then((t) => reject(new Error(t.trim() || `Berth's egress proxy refused ${url.host}.`)), reject);
            return;
          }
          const out = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) out.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
          const empty = res.statusCode === 204 || res.statusCode === 304 || init?.method === 'HEAD';
          if (empty) res.resume();
          resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status: res.statusCode ?? 502, statusText: res.statusMessage ?? '', headers: out }));
        },
      );
      req.on('error', (error) => reject(init?.signal?.aborted ? error : new Error(`Could not reach ${url.host} from the chat's sandbox: ${error.message}`, { cause: error })));
      req.end(body);
    });
  };

  return {
    fetch,
    close: () => {
      for (const a of agents.values()) a.destroy();
      agents.clear();
    },
  };
}

/** The relay, then the CONNECT tunnel and TLS the route asks for. */
async function open(route: McpHttpRoute, connect: SandboxConnect): Promise<Duplex> {
  const raw = await connect(route.connect.host, route.connect.port);
  try {
    if (route.tunnel) await tunnel(raw, route.tunnel);
    if (!route.tls) return raw;
    const servername = route.tls;
    return await new Promise<Duplex>((resolve, reject) => {
      const secure = tls.connect({ socket: raw as unknown as import('node:net').Socket, servername, ALPNProtocols: ['http/1.1'] }, () => resolve(secure));
      secure.once('error', reject);
    });
  } catch (error) {
    raw.destroy();
    throw error;
  }
}

/** Asks the proxy for a tunnel; a refusal is the proxy's own sentence. */
function tunnel(socket: Duplex, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const done = (error: Error | null) => {
      // Paused before the listener goes: what follows is TLS's to read, none of it lost.
      socket.pause();
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
      if (error) reject(error);
      else resolve();
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD) done(new Error(`The sandbox's proxy gave no answer Berth understands to a tunnel to ${target}.`));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1'))?.[1];
      if (status === '200') {
        const rest = head.subarray(end + 4);
        done(null);
        if (rest.length > 0) socket.unshift(rest);
        return;
      }
      // The refusal's body (HAProxy's 403 carries the sentence): what there is so far, or at the end.
      const body = head.subarray(end + 4).toString('utf8').trim();
      done(new Error(body || `The sandbox's proxy refused a tunnel to ${target} (HTTP ${status ?? '?'}).`));
    };
    const onEnd = () => done(new Error(`The connection to ${target} from the chat's sandbox closed before it opened.`));
    const onError = (error: Error) => done(error);
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

function text(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.length < 64 && chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8').slice(0, 4000)));
    res.on('error', reject);
  });
}

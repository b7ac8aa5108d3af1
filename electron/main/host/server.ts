/**
 * The browser host: one HTTP server on 127.0.0.1 that serves the built renderer and carries the
 * contract as JSON-RPC 2.0 over a WebSocket (docs/transport.md). The page lives under
 * `/t/<token>/` and its socket at `/t/<token>/rpc`; `/?token=` redirects there, and `/rpc?token=`
 * serves clients that are not a page. Every request and every upgrade passes the checks in
 * auth.ts first (Host, Origin, token); nothing else of the computer is reachable through it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { BerthCore } from '../core.js';
import { contentTypeFor } from '../policy/contentTypes.js';
import { RPC_PATH, checkAccess, homePath, requestPath, type AccessDecision } from './auth.js';
import { RPC_INVALID_REQUEST, createDispatcher, errorResponse, notification } from './jsonRpc.js';
import { handleApiRequest, sendAccessRefusal, type OpenAiApiCore } from './openaiApi.js';
import { TERMINAL_FRAME_PROTOCOL, encodeTerminalData } from '../../../shared/terminalFrame.js';

/** What the host needs of the core: calls by name and the event stream. */
export type HostCore = Pick<BerthCore, 'connectClient' | 'onEvent'>;

export interface HostServerOptions {
  core: HostCore;
  /** 0 picks a free port. */
  port: number;
  /** The built renderer (`dist/renderer`). */
  staticDir: string;
  /** The access token; a fresh random one when absent. */
  token?: string;
  /** Where unexpected errors are reported (never to the client); silent by default. */
  log?: (line: string) => void;
  /** The largest incoming WebSocket message, in bytes. */
  maxMessageBytes?: number;
  /** Serves the OpenAI-compatible API under /v1/ (same token); absent, /v1/ answers 404. */
  api?: OpenAiApiCore;
}

export interface HostServer {
  /** `http://127.0.0.1:<port>/?token=<token>`: the URL to open. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export { RPC_PATH };
/**
 * The contract allows strings of a million characters (`sandbox.exec`'s command, `terminal.input`),
 * which JSON-encode to at most 6 bytes each: 8 MiB carries every valid request.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** A client this far behind on reading its socket is not reading at all: it is dropped. */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
const HOST = '127.0.0.1';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "img-src 'self' data:",
    "style-src 'self' 'unsafe-inline'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}

function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(port),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // The page's URL carries the token: never hand it to anything it links to.
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}


type StaticTarget = { ok: true; relative: string } | { ok: false; status: 400 | 403 | 404; message: string };

/**
 * The file a request path names, relative to the static folder, or why there is none.
 * Any `..` segment (also percent-encoded), backslash or NUL is refused outright.
 */
export function staticTarget(requestTarget: string): StaticTarget {
  const rawPath = requestPath(requestTarget);
  if (!rawPath.startsWith('/')) return { ok: false, status: 400, message: 'Bad request path.\n' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return { ok: false, status: 400, message: 'Bad request path.\n' };
  }
  if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').includes('..')) {
    return { ok: false, status: 403, message: 'That path is outside what Berth serves.\n' };
  }
  const segments = decoded.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s.startsWith('.'))) return { ok: false, status: 404, message: 'Not found.\n' };
  if (decoded.endsWith('/')) segments.push('index.html');
  if (segments.length === 0) segments.push('index.html');
  return { ok: true, relative: segments.join('/') };
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function rawDataToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

export async function createHostServer(options: HostServerOptions): Promise<HostServer> {
  const { core } = options;
  const token = options.token ?? newToken();
  if (token.length === 0) throw new Error('The browser host needs a non-empty token.');
  const staticRoot = path.resolve(options.staticDir);
  const log = options.log ?? (() => undefined);
  let port = options.port;
  let closing = false;

  const onInternalError = (error: unknown, method: string | null) => {
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    const text = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
    log(`berth host: ${method ?? 'a request'} failed: ${text}`);
  };

  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    // Compression buys nothing on loopback and costs memory per socket.
    perMessageDeflate: false,
    // A page that asks for it gets terminal output as binary frames (shared/terminalFrame.ts);
    // any other client, JSON text only.
    handleProtocols: (protocols) => (protocols.has(TERMINAL_FRAME_PROTOCOL) ? TERMINAL_FRAME_PROTOCOL : false),
  });

  const decide = (req: http.IncomingMessage, upgrade: boolean): AccessDecision =>
    checkAccess(
      {
        url: req.url,
        host: req.headers.host,
        origin: req.headers.origin,
        upgrade,
        authorization: req.headers.authorization,
      },
      { port, token },
    );

  function sendText(res: http.ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
    const body = Buffer.from(message, 'utf8');
    res.writeHead(status, {
      ...securityHeaders(port),
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(body.length),
      'Cache-Control': 'no-store',
      ...extra,
    });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  }

  /** Into the page's home; relative, so it stays on whichever of 127.0.0.1/localhost was used. */
  function redirectHome(res: http.ServerResponse): void {
    sendText(res, 302, 'Berth is at its page address.\n', { Location: homePath(token) });
  }

  /** `filePath`: the request path after its `/t/<token>` prefix. */
  async function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, filePath: string): Promise<void> {
    const target = staticTarget(filePath);
    if (!target.ok) return sendText(res, target.status, target.message);
    const wantsIndex = target.relative === 'index.html';
    const notBuilt = () =>
      sendText(res, 503, 'The Berth web UI is not built yet. Run `npm run build:renderer`, then reload this page.\n');

    let realRoot: string;
    try {
      realRoot = await fs.promises.realpath(staticRoot);
    } catch {
      return wantsIndex ? notBuilt() : sendText(res, 404, 'Not found.\n');
    }
    const candidate = path.resolve(realRoot, ...target.relative.split('/'));
    let file: string;
    let stat: fs.Stats;
    try {
      file = await fs.promises.realpath(candidate);
      stat = await fs.promises.stat(file);
    } catch {
      return wantsIndex ? notBuilt() : sendText(res, 404, 'Not found.\n');
    }
    // A link inside the build that points elsewhere is refused like `..` is.
    if (!isInside(realRoot, file) || !isInside(realRoot, candidate)) {
      return sendText(res, 403, 'That path is outside what Berth serves.\n');
    }
    if (!stat.isFile()) return sendText(res, 404, 'Not found.\n');

    const type = contentTypeFor(file);
    const headers: Record<string, string> = {
      ...securityHeaders(port),
      'Content-Type': type,
      'Content-Length': String(stat.size),
      // The page is tied to this run's token; assets are revalidated so a rebuild shows up.
      'Cache-Control': path.extname(file).toLowerCase() === '.html' ? 'no-store' : 'no-cache',
    };
    if (req.method === 'HEAD') {
      res.writeHead(200, headers);
      res.end();
      return;
    }
    const stream = fs.createReadStream(file);
    stream.once('open', () => {
      res.writeHead(200, headers);
      stream.pipe(res);
    });
    stream.once('error', () => {
      if (!res.headersSent) sendText(res, 404, 'Not found.\n');
      else res.destroy();
    });
    res.once('close', () => stream.destroy());
  }

  const server = http.createServer((req, res) => {
    const decision = decide(req, false);
    if (!decision.ok) return decision.api && options.api ? sendAccessRefusal(res, decision.status, decision.message) : sendText(res, decision.status, decision.message);
    if (decision.route.kind === 'api') {
      if (!options.api) return sendText(res, 404, 'Not found.\n');
      return void handleApiRequest(options.api, req, res, decision.route.path).catch((error: unknown) => {
        onInternalError(error, decision.route.kind);
        if (!res.headersSent) sendText(res, 500, 'Berth could not answer this API request.\n');
        else res.destroy();
      });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendText(res, 405, 'Berth serves pages with GET only; calls go over its WebSocket.\n', { Allow: 'GET, HEAD' });
    }
    const { route } = decision;
    if (route.kind === 'rpc') return sendText(res, 426, 'This address speaks WebSocket (JSON-RPC 2.0).\n', { Upgrade: 'websocket' });
    // `/t/<token>` without its slash would resolve the page's relative asset URLs outside the prefix.
    if (route.kind === 'enter' || route.path === '') return redirectHome(res);
    serveStatic(req, res, route.path).catch((error: unknown) => {
      log(`berth host: serving ${route.path} failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) sendText(res, 500, 'Berth could not serve this file.\n');
      else res.destroy();
    });
  });

  function refuseUpgrade(socket: Duplex, status: number, message: string): void {
    const body = Buffer.from(message, 'utf8');
    const headers = {
      ...securityHeaders(port),
      Connection: 'close',
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(body.length),
      'Cache-Control': 'no-store',
    };
    const head = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  }

  function onConnection(ws: WebSocket): void {
    if (closing) {
      ws.close(1001, 'Berth is shutting down');
      return;
    }
    sockets.add(ws);
    // Each socket is one screen: its calls are a client's, and terminals pace output to it.
    const client = core.connectClient();
    const dispatch = createDispatcher({ call: (method, params) => client.call(method, params), onInternalError });
    const send = (message: string | Uint8Array) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        ws.terminate();
        return;
      }
      ws.send(message);
    };
    const frames = ws.protocol === TERMINAL_FRAME_PROTOCOL;
    const subscription = core.onEvent((event, payload) => {
      if (frames && event === 'terminal.data') {
        const { terminalId, data } = payload as { terminalId: string; data: string };
        const frame = encodeTerminalData(terminalId, data);
        if (frame) return send(frame);
      }
      let text: string;
      try {
        text = notification(event, payload);
      } catch (error) {
        log(`berth host: event ${event} could not be sent: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      send(text);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        send(errorResponse(null, { code: RPC_INVALID_REQUEST, message: 'Invalid request: send JSON text frames, not binary ones.' }));
        return;
      }
      void dispatch(rawDataToString(data)).then((response) => {
        if (response !== null) send(response);
      });
    });
    ws.on('error', () => {
      // A protocol error (too large, bad UTF-8) closes the socket; 'close' cleans up.
    });
    ws.once('close', () => {
      subscription.dispose();
      client.dispose();
      sockets.delete(ws);
    });
  }

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (closing) return refuseUpgrade(socket, 503, 'Berth is shutting down.\n');
    const decision = decide(req, true);
    if (!decision.ok) return refuseUpgrade(socket, decision.status, decision.message);
    if (decision.route.kind !== 'rpc') return refuseUpgrade(socket, 404, 'Not found.\n');
    wss.handleUpgrade(req, socket, head, onConnection);
  });
  server.on('clientError', (_error, socket: Duplex) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(options.port, HOST, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The browser host did not get a TCP port.');
  port = address.port;

  let closed: Promise<void> | null = null;
  return {
    url: `http://${HOST}:${port}/?token=${token}`,
    port,
    token,
    close() {
      closed ??= (async () => {
        closing = true;
        const socketsClosed = [...sockets].map((ws) => new Promise<void>((resolve) => ws.once('close', () => resolve())));
        for (const ws of sockets) ws.close(1001, 'Berth is shutting down');
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Give sockets a moment to finish their closing handshake, then cut what is left.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(socketsClosed), new Promise((resolve) => (timer = setTimeout(resolve, 500)))]);
        clearTimeout(timer);
        for (const ws of sockets) ws.terminate();
        server.closeAllConnections();
        wss.close();
        await stopped;
      })();
      return closed;
    },
  };
}

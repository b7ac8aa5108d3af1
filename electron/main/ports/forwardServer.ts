/**
 * One port forward's listener on this computer: an HTTP server on 127.0.0.1 only (never
 * 0.0.0.0, never the LAN) that judges every request (policy/forwardGate.ts) and passes the ones
 * it lets in to the sandbox's port over relays (relay.ts): ordinary requests over a keep-alive
 * pool of them, each WebSocket (a dev server's hot reload) over a relay of its own.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { judgeForwardRequest, SECRET_PARAM, type GateRequest } from './common/forwardGate.js';
import { relayAgent, type RelayConnection, type RelayTarget } from './relay.js';

/** Connection-level headers: each side of the forward has its own connection (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export interface ForwardServerOptions {
  /** The sandbox's port, for messages. */
  port: number;
  target: () => RelayTarget;
  /** The host port and secret to take again (after a restart of Berth); a new secret and any free port otherwise. */
  hostPort?: number;
  secret?: string;
}

export class ForwardServer {
  readonly secret: string;
  private readonly server: http.Server;
  private readonly agent: http.Agent;
  private readonly relays = new Set<Duplex>();
  private port = 0;

  private constructor(private readonly options: ForwardServerOptions) {
    this.secret = options.secret ?? randomBytes(24).toString('base64url');
    this.agent = relayAgent(options.target, (socket) => this.track(socket));
    this.server = http.createServer((req, res) => this.request(req, res));
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.upgrade(req, socket, head));
  }

  static async start(options: ForwardServerOptions): Promise<ForwardServer> {
    const forward = new ForwardServer(options);
    await forward.listen(options.hostPort ?? 0).catch(() => forward.listen(0));
    return forward;
  }

  get hostPort(): number {
    return this.port;
  }

  /** The URL "Open in browser" and "Copy URL" give: its secret lets that browser in, as a cookie. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/?${SECRET_PARAM}=${this.secret}`;
  }

  async close(): Promise<void> {
    this.agent.destroy();
    for (const r of this.relays) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const failed = (error: Error) => reject(error);
      this.server.once('error', failed);
      // Loopback only: nothing on the network can connect, whatever the firewall says.
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', failed);
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private track(socket: Duplex): void {
    this.relays.add(socket);
    socket.once('close', () => this.relays.delete(socket));
  }

  private judge(req: http.IncomingMessage, upgrade: boolean) {
    const h = req.headers;
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
    const gate: GateRequest = {
      remoteAddress: req.socket.remoteAddress,
      host: h.host,
      origin: h.origin,
      fetchSite: one(h['sec-fetch-site']),
      fetchMode: one(h['sec-fetch-mode']),
      url: req.url ?? '',
      cookie: h.cookie,
      upgrade,
    };
    return judgeForwardRequest(gate, { hostPort: this.port, secret: this.secret });
  }

  private request(req: http.IncomingMessage, res: http.ServerResponse, retried = false): void {
    const verdict = this.judge(req, false);
    if (verdict.kind === 'refuse') return plain(res, verdict.status, verdict.reason);
    if (verdict.kind === 'grant') {
      res.writeHead(302, { location: verdict.location, 'set-cookie': verdict.setCookie, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end();
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && name !== 'cookie') headers[name] = value;
    if (verdict.cookie !== null) headers.cookie = verdict.cookie;
    const bodyless = (req.method === 'GET' || req.method === 'HEAD') && !req.headers['content-length'] && !req.headers['transfer-encoding'];
    const upstream = http.request({ agent: this.agent, method: req.method, path: verdict.url, headers, setHost: false });
    upstream.on('response', (answer) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      // A kept relay the server had closed meanwhile: a body-less request goes once more on a new one.
      if (upstream.reusedSocket && !retried && bodyless) return this.request(req, res, true);
      if (res.headersSent) return void res.destroy();
      const said = (upstream.socket as RelayConnection | null)?.problem?.trim() || error.message;
      plain(res, 502, `Nothing answered on port ${this.options.port} in the sandbox (${said}). Is the server still running there?`);
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (bodyless) {
      req.resume();
      upstream.end();
    } else {
      req.pipe(upstream);
    }
  }

  private async upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const verdict = this.judge(req, true);
    if (verdict.kind !== 'pass') {
      const status = verdict.kind === 'refuse' ? verdict.status : 403;
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${verdict.kind === 'refuse' ? verdict.reason : ''}\n`);
      return;
    }
    let relay: RelayConnection;
    try {
      relay = await this.options.target().open();
    } catch (error) {
      socket.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n${(error as Error).message}\n`);
      return;
    }
    this.track(relay);
    this.track(socket);
    const lines = [`${req.method} ${verdict.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] as string;
      if (name.toLowerCase() !== 'cookie') lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
    }
    if (verdict.cookie !== null) lines.push(`Cookie: ${verdict.cookie}`);
    relay.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) relay.write(head);
    relay.on('error', () => socket.destroy());
    relay.on('close', () => socket.destroy());
    socket.on('close', () => relay.destroy());
    socket.pipe(relay).pipe(socket);
  }
}

function plain(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${text}\n`);
}

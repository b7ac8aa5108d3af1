/** Test helpers: real HTTP requests and a small JSON-RPC WebSocket client. */
import http from 'node:http';
import { WebSocket } from 'ws';
import { decodeTerminalFrame } from '../../../shared/terminalFrame.js';

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET (or another method) with exactly the headers given; `Host` may be overridden. */
export function request(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export type Connected = { ok: true; ws: WebSocket } | { ok: false; status: number; body: string };

/** Opens a WebSocket; resolves with the socket, or with the HTTP status the server refused it with. */
export function connect(url: string, headers: Record<string, string> = {}, protocols: string[] = []): Promise<Connected> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.once('open', () => resolve({ ok: true, ws }));
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ ok: false, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ ok: false, status: res.statusCode ?? 0, body: '' }));
    });
    ws.once('error', reject);
  });
}

export interface RpcMessage {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { code: string; hint?: string } };
}

/** Sends requests and waits for the message with the same id; collects notifications. */
export class RpcClient {
  readonly notifications: RpcMessage[] = [];
  /** How many binary frames (terminal output, shared/terminalFrame.ts) arrived; each is in notifications too. */
  binaryFrames = 0;
  private readonly responses: RpcMessage[] = [];
  private readonly waiters = new Set<() => void>();
  private nextId = 1;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      let message: RpcMessage;
      if (isBinary) {
        this.binaryFrames++;
        const event = decodeTerminalFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        if (!event) throw new Error('a binary frame that is not terminal output');
        message = { jsonrpc: '2.0', method: 'terminal.data', params: event };
      } else message = JSON.parse(data.toString('utf8')) as RpcMessage;
      if (message.id === undefined) this.notifications.push(message);
      else this.responses.push(message);
      for (const w of [...this.waiters]) w();
    });
  }

  /** Resolves when a message satisfying `pick` has arrived (already, or within the timeout). */
  waitFor(pick: (all: { responses: RpcMessage[]; notifications: RpcMessage[] }) => RpcMessage | undefined, timeoutMs = 5000): Promise<RpcMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = pick({ responses: this.responses, notifications: this.notifications });
        if (!found) return false;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error('timed out waiting for a JSON-RPC message'));
      }, timeoutMs);
      if (!check()) this.waiters.add(check);
    });
  }

  /** Sends raw text and waits for the response with the given id (null: a response with id null). */
  sendRaw(text: string, expectId: string | number | null): Promise<RpcMessage> {
    const seen = this.responses.length;
    this.ws.send(text);
    return this.waitFor(({ responses }) => responses.slice(seen).find((r) => r.id === expectId));
  }

  call(method: string, params?: unknown): Promise<RpcMessage> {
    const id = this.nextId++;
    return this.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, method, params }), id);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

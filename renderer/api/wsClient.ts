/**
 * JSON-RPC 2.0 over WebSocket to the browser host (docs/transport.md): requests with ids, a
 * pending map, notifications dispatched to listeners by event name, and reconnection with
 * backoff when the socket drops. The token travels in the URL, never in a cookie: the socket
 * address is derived from the page's own (`/t/<token>/` → `/t/<token>/rpc`).
 */
import type { AttachChoice, BerthApi, ConnectionInfo, ConnectionSource, EventName, EventPayload, MethodName, PickFolderResult, Picked, Request, Response } from './types';
import { ApiError } from './errors';
import { TERMINAL_FRAME_PROTOCOL, decodeTerminalFrame } from '../../shared/terminalFrame';

/** The subset of the DOM WebSocket this client uses (a test can hand in its own). */
export interface SocketLike {
  readonly readyState: number;
  /** 'arraybuffer': binary frames (terminal output) arrive as ArrayBuffers. */
  binaryType?: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: Event) => unknown) | null;
  onmessage: ((ev: MessageEvent) => unknown) | null;
  onclose: ((ev: CloseEvent) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
}

export interface WsClientOptions {
  url: string;
  /** `protocols`: the subprotocols to ask for (terminal output as binary frames). */
  createSocket?: (url: string, protocols: string[]) => SocketLike;
  /** Reconnect delays: initialMs doubling up to maxMs, each with up to 50% jitter removed. */
  backoff?: { initialMs: number; maxMs: number };
  random?: () => number;
  /**
   * After a socket closes without opening: does the host still take this page's token? A
   * browser never shows a refused upgrade's status, so this asks over plain HTTP.
   */
  probe?: () => Promise<ProbeResult>;
}

/** `refused`: the host answered 401 (another token); `unknown`: down, or anything else. */
export type ProbeResult = 'refused' | 'unknown';

/** The socket's address over HTTP: the host answers it 426 with a good token, 401 without. */
export function probeUrl(socketUrl: string): string {
  return socketUrl.replace(/^ws(s?):/, 'http$1:');
}

export function httpProbe(socketUrl: string, fetchFn: typeof fetch = (...args) => fetch(...args)): () => Promise<ProbeResult> {
  return async () => {
    try {
      const res = await fetchFn(probeUrl(socketUrl), { method: 'HEAD', cache: 'no-store', credentials: 'omit' });
      return res.status === 401 ? 'refused' : 'unknown';
    } catch {
      return 'unknown';
    }
  };
}

const OPEN = 1;

export const LINK_EXPIRED = 'Berth was restarted: open the address it printed. This page\'s link has expired (each start has a new access token).';
export const LINK_EXPIRED_HINT = 'Open the new URL that Berth printed when it started (`npm run web`: "Berth is running at http://…/?token=…").';

/**
 * The hint with the address: the host that refused this page's token answers at this page's own
 * origin (the probe asked it), so the printed address starts with it.
 */
export function linkExpiredHint(origin: string | null): string {
  if (origin === null || !/^https?:\/\//.test(origin)) return LINK_EXPIRED_HINT;
  return `Open the new URL that Berth printed when it started: ${origin}/?token=… (\`npm run web\`: "Berth is running at ${origin}/?token=…"). This chat, its draft and its changes are there again.`;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** The serialised request, until it has been handed to an open socket. */
  unsent: string | null;
}

interface RpcError {
  code: number;
  message: string;
  data?: { code?: unknown; hint?: unknown };
}

const RPC_CODES: Record<number, string> = {
  [-32700]: 'invalid_request',
  [-32600]: 'invalid_request',
  [-32601]: 'not_found',
  [-32602]: 'invalid_request',
};

export function rpcError(error: RpcError): ApiError {
  const data = error.data ?? {};
  const code = typeof data.code === 'string' ? data.code : (RPC_CODES[error.code] ?? 'internal');
  const hint = typeof data.hint === 'string' && data.hint !== '' ? data.hint : undefined;
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : 'Berth could not do that.';
  return new ApiError(code, message, hint);
}

/**
 * The socket address for this page: `ws(s)://<host>/t/<token>/rpc` when the page lives under
 * `/t/<token>/` (the browser host), else `ws(s)://<host>/rpc` with the page's `?token=` passed on
 * when it has one (a dev server proxying /rpc).
 */
export function rpcUrl(location: Pick<Location, 'protocol' | 'host' | 'search' | 'pathname'>): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const prefixed = /^\/t\/([^/]+)\//.exec(location.pathname);
  if (prefixed) return `${scheme}://${location.host}/t/${prefixed[1]}/rpc`;
  const token = new URLSearchParams(location.search).get('token');
  return `${scheme}://${location.host}/rpc${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}

export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: number): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (0.5 + random / 2));
}

export class WsClient implements BerthApi, ConnectionSource {
  private socket: SocketLike | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();
  private readonly stateListeners = new Set<(info: ConnectionInfo) => void>();
  private info: ConnectionInfo = { transport: 'ws', state: 'connecting', epoch: 0, retryAt: null };
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;
  private readonly createSocket: (url: string, protocols: string[]) => SocketLike;
  private readonly backoff: { initialMs: number; maxMs: number };
  private readonly random: () => number;
  private readonly probe: () => Promise<ProbeResult>;

  constructor(private readonly options: WsClientOptions) {
    this.createSocket = options.createSocket ?? ((url, protocols) => new WebSocket(url, protocols));
    this.backoff = options.backoff ?? { initialMs: 250, maxMs: 5000 };
    this.random = options.random ?? Math.random;
    this.probe = options.probe ?? httpProbe(options.url);
    this.connect();
  }

  // ---------- BerthApi ----------

  call<M extends MethodName>(method: M, params: Request<M>): Promise<Response<M>> {
    if (this.disposed) return Promise.reject(new ApiError('disconnected', 'The connection to Berth is closed.'));
    if (this.info.state === 'expired') return Promise.reject(new ApiError('link_expired', LINK_EXPIRED, LINK_EXPIRED_HINT));
    const id = this.nextId++;
    const message = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return new Promise<Response<M>>((resolve, reject) => {
      const entry: Pending = { resolve: resolve as (value: unknown) => void, reject, unsent: message };
      this.pending.set(id, entry);
      this.flushOne(entry);
    });
  }

  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    const l = listener as (payload: unknown) => void;
    set.add(l);
    return () => {
      set.delete(l);
    };
  }

  /** The browser host cannot open a native dialog: the UI shows its own folder browser. */
  pickFolder(_chatId: string, _choice: AttachChoice): Promise<PickFolderResult> {
    return Promise.resolve('browse');
  }

  /** The browser host never holds a folder choice: its page picks in its own browser (pickFolder answers 'browse'). */
  confirmFolder(_token: string, _attach: boolean): Promise<Picked | 'cancelled'> {
    return Promise.reject(new ApiError('invalid_request', 'The browser host attaches folders chosen in its own folder browser.'));
  }

  // ---------- ConnectionSource ----------

  get(): ConnectionInfo {
    return this.info;
  }

  subscribe(listener: (info: ConnectionInfo) => void): () => void {
    this.stateListeners.add(listener);
    return () => {
      this.stateListeners.delete(listener);
    };
  }

  /** Tries to reconnect at once instead of waiting for the backoff. */
  reconnectNow(): void {
    if (this.disposed || this.info.state !== 'reconnecting') return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.connect();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      socket.close();
    }
    this.rejectPending(() => true, new ApiError('disconnected', 'The connection to Berth is closed.'));
    this.setInfo({ ...this.info, state: 'closed', retryAt: null });
  }

  // ---------- internals ----------

  private setInfo(info: ConnectionInfo): void {
    this.info = info;
    for (const l of [...this.stateListeners]) {
      try {
        l(info);
      } catch {
        // A failing listener must not break the connection or the other listeners.
      }
    }
  }

  private connect(): void {
    let socket: SocketLike;
    try {
      // Terminal output as binary frames (shared/terminalFrame.ts): no JSON escaping or parsing.
      socket = this.createSocket(this.options.url, [TERMINAL_FRAME_PROTOCOL]);
      socket.binaryType = 'arraybuffer';
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      if (this.socket !== socket) return;
      this.attempt = 0;
      this.setInfo({ transport: 'ws', state: 'open', epoch: this.info.epoch + 1, retryAt: null });
      for (const entry of this.pending.values()) this.flushOne(entry);
    };
    socket.onmessage = (ev) => {
      if (this.socket !== socket) return;
      if (typeof ev.data === 'string') this.handleMessage(ev.data);
      else if (ev.data instanceof ArrayBuffer) this.handleFrame(ev.data);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      // Requests the server received may or may not have run: the caller decides what to retry.
      // Requests never sent wait for the next connection.
      this.rejectPending(
        (entry) => entry.unsent === null,
        new ApiError('disconnected', 'Lost the connection to Berth before it answered.', 'Reconnecting; try again in a moment.'),
      );
      if (opened) this.scheduleReconnect();
      else this.checkTokenThenRetry();
    };
    socket.onerror = () => {
      // A close event follows; reconnection is handled there.
    };
  }

  /**
   * A socket that never opened: the host is down, or it no longer takes this token (restarted,
   * a new token). Only the first is worth retrying; the second is told as `expired`, for good.
   */
  private checkTokenThenRetry(): void {
    void this.probe().then((result) => {
      if (this.disposed || this.socket !== null || this.timer !== null) return;
      if (result === 'refused') {
        this.rejectPending(() => true, new ApiError('link_expired', LINK_EXPIRED, LINK_EXPIRED_HINT));
        this.setInfo({ ...this.info, state: 'expired', retryAt: null });
        return;
      }
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.disposed) return;
    const delay = backoffDelay(this.attempt, this.backoff.initialMs, this.backoff.maxMs, this.random());
    this.attempt++;
    this.setInfo({ ...this.info, state: 'reconnecting', retryAt: Date.now() + delay });
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private flushOne(entry: Pending): void {
    const socket = this.socket;
    if (entry.unsent === null || !socket || socket.readyState !== OPEN) return;
    try {
      socket.send(entry.unsent);
      entry.unsent = null;
    } catch {
      // Left unsent: it goes out when the socket (re)opens.
    }
  }

  private rejectPending(which: (entry: Pending) => boolean, error: ApiError): void {
    for (const [id, entry] of [...this.pending]) {
      if (!which(entry)) continue;
      this.pending.delete(id);
      entry.reject(error);
    }
  }

  private handleMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const m = message as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: RpcError };
    if (typeof m.method === 'string' && (m.id === undefined || m.id === null)) {
      this.dispatch(m.method, m.params);
      return;
    }
    if (typeof m.id !== 'number') return;
    const entry = this.pending.get(m.id);
    if (!entry) return;
    this.pending.delete(m.id);
    if (m.error !== undefined && m.error !== null) entry.reject(rpcError(m.error));
    else entry.resolve(m.result);
  }

  /** A binary frame: terminal output, the same payload as its JSON notification. */
  private handleFrame(frame: ArrayBuffer): void {
    const event = decodeTerminalFrame(new Uint8Array(frame));
    if (event) this.dispatch('terminal.data', event);
  }

  private dispatch(event: string, payload: unknown): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(payload);
      } catch (error) {
        console.error(`A listener for ${event} failed`, error);
      }
    }
  }
}

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionInfo } from './types';
import { TERMINAL_FRAME_PROTOCOL, encodeTerminalData } from '../../shared/terminalFrame';
import { backoffDelay, httpProbe, probeUrl, rpcUrl, WsClient, type ProbeResult, type SocketLike } from './wsClient';

class FakeSocket implements SocketLike {
  readyState = 0;
  binaryType = 'blob';
  protocols: string[] = [];
  sent: string[] = [];
  closed = false;
  onopen: ((ev: Event) => unknown) | null = null;
  onmessage: ((ev: MessageEvent) => unknown) | null = null;
  onclose: ((ev: CloseEvent) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.closed = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  drop() {
    this.readyState = 3;
    this.onclose?.(new CloseEvent('close'));
  }
  receiveBinary(frame: Uint8Array) {
    const copy = new Uint8Array(frame.length);
    copy.set(frame);
    this.onmessage?.(new MessageEvent('message', { data: copy.buffer }));
  }
  receive(message: unknown) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(message) }));
  }
  lastRequest(): { id: number; method: string; params: unknown } {
    return JSON.parse(this.sent[this.sent.length - 1] ?? 'null') as { id: number; method: string; params: unknown };
  }
}

function setup(probe: () => Promise<ProbeResult> = () => Promise.resolve('unknown')) {
  const sockets: FakeSocket[] = [];
  const client = new WsClient({
    url: 'ws://host/rpc',
    createSocket: (url, protocols) => {
      const s = new FakeSocket(url);
      s.protocols = protocols;
      sockets.push(s);
      return s;
    },
    backoff: { initialMs: 100, maxMs: 1000 },
    random: () => 1,
    probe,
  });
  const states: ConnectionInfo[] = [];
  client.subscribe((info) => states.push(info));
  const current = () => sockets[sockets.length - 1] as FakeSocket;
  return { client, sockets, states, current };
}

describe('rpcUrl', () => {
  it('takes the token from the page path /t/<token>/, keeping it as the page has it', () => {
    expect(rpcUrl({ protocol: 'http:', host: '127.0.0.1:4000', pathname: '/t/abc_-9/', search: '' })).toBe('ws://127.0.0.1:4000/t/abc_-9/rpc');
    expect(rpcUrl({ protocol: 'https:', host: 'h', pathname: '/t/a%2Bb/index.html', search: '?token=other' })).toBe('wss://h/t/a%2Bb/rpc');
  });

  it('falls back to /rpc with the page query token, or none, outside /t/<token>/', () => {
    expect(rpcUrl({ protocol: 'http:', host: '127.0.0.1:4000', pathname: '/', search: '' })).toBe('ws://127.0.0.1:4000/rpc');
    expect(rpcUrl({ protocol: 'https:', host: 'h', pathname: '/', search: '?token=a b&x=1' })).toBe('wss://h/rpc?token=a%20b');
    expect(rpcUrl({ protocol: 'http:', host: 'h', pathname: '/t/abc', search: '?token=q' })).toBe('ws://h/rpc?token=q');
    expect(rpcUrl({ protocol: 'http:', host: 'h', pathname: '/t//', search: '' })).toBe('ws://h/rpc');
  });

  it('backs off doubling up to the maximum', () => {
    expect([0, 1, 2, 3, 10].map((n) => backoffDelay(n, 100, 1000, 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(0, 100, 1000, 0)).toBe(50);
  });
});

describe('WsClient', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends JSON-RPC requests once open and resolves them by id', async () => {
    const { client, current } = setup();
    const listing = client.call('chats.list', {});
    expect(current().sent).toEqual([]);
    current().open();
    const request = current().lastRequest();
    expect(request).toMatchObject({ jsonrpc: '2.0', method: 'chats.list', params: {} });
    current().receive({ jsonrpc: '2.0', id: request.id, result: { chats: [] } });
    await expect(listing).resolves.toEqual({ chats: [] });
  });

  it('rejects with the message as is and the code and hint from error.data', async () => {
    const { client, current } = setup();
    current().open();
    const attach = client.call('workspace.attach', { chatId: 'c', path: '/etc' });
    const { id } = current().lastRequest();
    current().receive({
      jsonrpc: '2.0',
      id,
      error: { code: -32000, message: '/etc is a system folder.', data: { code: 'workspace_refused', hint: 'Attach a project folder instead.' } },
    });
    await expect(attach).rejects.toMatchObject({ message: '/etc is a system folder.', code: 'workspace_refused', hint: 'Attach a project folder instead.' });
    await expect(attach).rejects.toBeInstanceOf(Error);
  });

  it('dispatches notifications to listeners of that event only', () => {
    const { client, current } = setup();
    current().open();
    const data: unknown[] = [];
    const exits: unknown[] = [];
    const off = client.on('terminal.data', (p) => data.push(p));
    client.on('terminal.exit', (p) => exits.push(p));
    current().receive({ jsonrpc: '2.0', method: 'terminal.data', params: { terminalId: 't', data: 'x' } });
    off();
    current().receive({ jsonrpc: '2.0', method: 'terminal.data', params: { terminalId: 't', data: 'y' } });
    expect(data).toEqual([{ terminalId: 't', data: 'x' }]);
    expect(exits).toEqual([]);
  });

  it('asks for terminal output as binary frames and hands it to terminal.data listeners as the same payload', () => {
    const { client, current } = setup();
    expect(current().protocols).toEqual([TERMINAL_FRAME_PROTOCOL]);
    expect(current().binaryType).toBe('arraybuffer');
    current().open();
    const data: unknown[] = [];
    client.on('terminal.data', (p) => data.push(p));
    current().receiveBinary(encodeTerminalData('t', 'é🙂\r\n') as Uint8Array);
    current().receiveBinary(new Uint8Array([9, 9, 9]));
    current().receive({ jsonrpc: '2.0', method: 'terminal.data', params: { terminalId: 't', data: 'text' } });
    expect(data).toEqual([{ terminalId: 't', data: 'é🙂\r\n' }, { terminalId: 't', data: 'text' }]);
  });

  it('reconnects with backoff after a drop, rejecting what was in flight and sending what was queued', async () => {
    const { client, sockets, states, current } = setup();
    current().open();
    const inFlight = client.call('engine.status', {});
    current().drop();
    await expect(inFlight).rejects.toMatchObject({ code: 'disconnected' });
    expect(states.at(-1)?.state).toBe('reconnecting');

    const queued = client.call('chats.list', {});
    vi.advanceTimersByTime(99);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(2);
    current().drop(); // the engine host is still down (the token check says nothing more)
    await vi.advanceTimersByTimeAsync(200);
    expect(sockets).toHaveLength(3);
    current().open();
    expect(states.at(-1)).toMatchObject({ state: 'open', epoch: 2 });
    const { id, method } = current().lastRequest();
    expect(method).toBe('chats.list');
    current().receive({ jsonrpc: '2.0', id, result: { chats: [] } });
    await expect(queued).resolves.toEqual({ chats: [] });
  });

  it('says the link expired, for good, when the restarted host refuses the token; keeps retrying while it is down', async () => {
    let answer: ProbeResult = 'unknown';
    const probe = vi.fn(() => Promise.resolve(answer));
    const { client, sockets, states, current } = setup(probe);
    current().open();
    current().drop(); // the host stops: a socket that had opened retries without asking
    expect(probe).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    current().drop(); // still down: never opened, so the token is checked, and it says nothing
    expect(probe).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(sockets).toHaveLength(3);
    const queued = client.call('chats.list', {}).catch((e: unknown) => e);
    answer = 'refused'; // back, with another token
    current().drop();
    await vi.advanceTimersByTimeAsync(0);
    expect(states.at(-1)).toMatchObject({ state: 'expired', retryAt: null });
    expect(await queued).toMatchObject({ code: 'link_expired', hint: expect.stringContaining('new URL') });
    await expect(client.call('chats.list', {})).rejects.toMatchObject({ code: 'link_expired' });
    await vi.advanceTimersByTimeAsync(60_000);
    client.reconnectNow();
    expect(sockets).toHaveLength(3);
  });

  it('asks the socket address over HTTP: 401 is a refused token, anything else (or no answer) is not', async () => {
    expect(probeUrl('ws://127.0.0.1:4000/t/abc/rpc')).toBe('http://127.0.0.1:4000/t/abc/rpc');
    expect(probeUrl('wss://h/rpc?token=x')).toBe('https://h/rpc?token=x');
    const answering = (status: number) => httpProbe('ws://h/t/a/rpc', () => Promise.resolve(new Response(null, { status })));
    await expect(answering(401)()).resolves.toBe('refused');
    await expect(answering(426)()).resolves.toBe('unknown');
    await expect(answering(503)()).resolves.toBe('unknown');
    await expect(httpProbe('ws://h/t/a/rpc', () => Promise.reject(new TypeError('Failed to fetch')))()).resolves.toBe('unknown');
  });

  it('answers pickFolder with "browse": the page shows its own folder browser', async () => {
    const { client } = setup();
    await expect(client.pickFolder('c', { mode: 'readonly' })).resolves.toBe('browse');
  });

  it('stops for good when disposed', async () => {
    const { client, sockets, current } = setup();
    current().open();
    const pending = client.call('engine.status', {});
    client.dispose();
    await expect(pending).rejects.toMatchObject({ code: 'disconnected' });
    expect(current().closed).toBe(true);
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(1);
    expect(client.get().state).toBe('closed');
  });
});

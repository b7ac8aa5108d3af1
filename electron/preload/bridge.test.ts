import { describe, expect, it, vi } from 'vitest';
import { CALL_CHANNEL, CONFIRM_FOLDER_CHANNEL, EVENT_CHANNEL, PICK_FOLDER_CHANNEL } from '../main/ipc/protocol.js';
import { FakeIpcRenderer } from '../main/ipc/testDoubles.js';
import { createBridge, type BridgeError } from './bridge.js';

// A test double of ipcRenderer (Electron's binary cannot run here): invoke is a mock, events
// are delivered as Electron does, with the IPC event first.
function setUp(invoke: (channel: string, ...args: unknown[]) => Promise<unknown> = async () => ({ ok: true, result: null })) {
  const spy = vi.fn(invoke);
  const ipc = new FakeIpcRenderer(spy);
  return { ipc, invoke: spy, bridge: createBridge(ipc) };
}

const deliver = (ipc: FakeIpcRenderer, event: string, payload: unknown) => ipc.emit(EVENT_CHANNEL, { sender: ipc, ports: [] }, { event, payload });

async function rejection(promise: Promise<unknown>): Promise<BridgeError> {
  try {
    await promise;
  } catch (error) {
    return error as BridgeError;
  }
  throw new Error('expected a rejection');
}

describe('createBridge: shape', () => {
  it('exposes exactly call, on, pickFolder and confirmFolder, all functions, frozen', () => {
    const { bridge, ipc } = setUp();
    expect(Object.keys(bridge).sort()).toEqual(['call', 'confirmFolder', 'on', 'pickFolder']);
    for (const value of Object.values(bridge)) expect(typeof value).toBe('function');
    expect(Object.values(bridge)).not.toContain(ipc);
    expect(Object.isFrozen(bridge)).toBe(true);
  });
});

describe('createBridge: call', () => {
  it('sends {method, params} on berth:call and resolves with the result', async () => {
    const { bridge, invoke } = setUp(async () => ({ ok: true, result: { chats: [] } }));
    await expect(bridge.call('chats.list', { profile: 'default' })).resolves.toEqual({ chats: [] });
    expect(invoke).toHaveBeenCalledExactlyOnceWith(CALL_CHANNEL, { method: 'chats.list', params: { profile: 'default' } });
  });

  it('sends {} when there are no params', async () => {
    const { bridge, invoke } = setUp();
    await bridge.call('profiles.list');
    expect(invoke).toHaveBeenCalledWith(CALL_CHANNEL, { method: 'profiles.list', params: {} });
  });

  it('rejects with a plain {name, code, message, hint} object, which contextBridge copies whole', async () => {
    const { bridge } = setUp(async () => ({
      ok: false,
      error: { code: 'engine_unreachable', message: 'Docker is not running.', hint: 'Start Docker Desktop.' },
    }));
    const error = await rejection(bridge.call('sandbox.exec', { chatId: 'c', command: 'ls' }));
    expect(error).toEqual({ name: 'BerthError', code: 'engine_unreachable', message: 'Docker is not running.', hint: 'Start Docker Desktop.' });
    expect(Object.getPrototypeOf(error)).toBe(Object.prototype);
    expect(structuredClone(error)).toEqual(error);
  });

  it('leaves hint out when main gave none', async () => {
    const { bridge } = setUp(async () => ({ ok: false, error: { code: 'not_found', message: 'No such chat.' } }));
    const error = await rejection(bridge.call('chats.delete', { chatId: 'x' }));
    expect(error.code).toBe('not_found');
    expect(error).not.toHaveProperty('hint');
  });

  it('turns a refused or failed invoke into an internal error', async () => {
    const { bridge } = setUp(async () => {
      throw new Error("Error invoking remote method 'berth:call': Error: refused");
    });
    expect(await rejection(bridge.call('chats.list', {}))).toMatchObject({ code: 'internal', message: 'Berth could not reach its main process.' });
  });

  it.each([null, undefined, 'text', { ok: 'yes' }, { ok: false }])('turns the unexpected reply %j into an internal error', async (reply) => {
    const { bridge } = setUp(async () => reply);
    expect((await rejection(bridge.call('chats.list', {}))).code).toBe('internal');
  });

  it.each([undefined, null, 5, {}, ['chats.list'], '', 'x'.repeat(129)])('rejects the method %j without sending anything', async (method) => {
    const { bridge, invoke } = setUp();
    const error = await rejection((bridge.call as (m: unknown, p?: unknown) => Promise<unknown>)(method, {}));
    expect(error.code).toBe('invalid_request');
    expect(invoke).not.toHaveBeenCalled();
  });
});

describe('createBridge: on', () => {
  it('hands the listener the payload of its own event only, never the IPC event', () => {
    const { bridge, ipc } = setUp();
    const listener = vi.fn();
    bridge.on('chats.changed', listener);
    deliver(ipc, 'terminal.data', { terminalId: 't', data: 'x' });
    deliver(ipc, 'chats.changed', { chatId: 'c1' });
    expect(listener).toHaveBeenCalledExactlyOnceWith({ chatId: 'c1' });
  });

  it('registers one ipcRenderer listener per subscription; unsubscribe removes exactly it', () => {
    const { bridge, ipc } = setUp();
    const a = vi.fn();
    const b = vi.fn();
    const offA = bridge.on('chats.changed', a);
    const offB = bridge.on('chats.changed', b);
    expect(ipc.listenerCount(EVENT_CHANNEL)).toBe(2);

    offA();
    expect(ipc.listenerCount(EVENT_CHANNEL)).toBe(1);
    deliver(ipc, 'chats.changed', { chatId: null });
    expect(a).not.toHaveBeenCalled();
    expect(b).toHaveBeenCalledOnce();

    offA(); // twice is harmless and removes nothing else
    expect(ipc.listenerCount(EVENT_CHANNEL)).toBe(1);
    offB();
    expect(ipc.listenerCount(EVENT_CHANNEL)).toBe(0);
  });

  it('keeps the same listener subscribed twice as two subscriptions', () => {
    const { bridge, ipc } = setUp();
    const listener = vi.fn();
    const off1 = bridge.on('engine.status', listener);
    bridge.on('engine.status', listener);
    off1();
    deliver(ipc, 'engine.status', { state: 'ok' });
    expect(listener).toHaveBeenCalledOnce();
  });

  it('a throwing listener does not stop the others', () => {
    const { bridge, ipc } = setUp();
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const after = vi.fn();
    bridge.on('chats.changed', () => {
      throw new Error('boom');
    });
    bridge.on('chats.changed', after);
    deliver(ipc, 'chats.changed', { chatId: null });
    expect(after).toHaveBeenCalledOnce();
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it.each([[5, vi.fn()], ['', vi.fn()], [null, vi.fn()], ['chats.changed', 'not a function'], ['chats.changed', undefined]])(
    'refuses the subscription (%j, %j) without listening',
    (event, listener) => {
      const { bridge, ipc } = setUp();
      expect(() => (bridge.on as (e: unknown, l: unknown) => () => void)(event, listener)).toThrow(TypeError);
      expect(ipc.listenerCount(EVENT_CHANNEL)).toBe(0);
    },
  );
});

describe('createBridge: pickFolder', () => {
  it('sends {chatId, readOnly} on berth:pickFolder and resolves with what was attached', async () => {
    const attached = { hostPath: '/home/me/site', containerPath: '/workspace', readOnly: true, attachedAt: 1 };
    const { bridge, invoke } = setUp(async () => ({ ok: true, result: { attached, notice: null } }));
    await expect(bridge.pickFolder('c1', true)).resolves.toEqual({ attached, notice: null });
    expect(invoke).toHaveBeenCalledExactlyOnceWith(PICK_FOLDER_CHANNEL, { chatId: 'c1', readOnly: true });
  });

  it('defaults readOnly to false', async () => {
    const { bridge, invoke } = setUp(async () => ({ ok: true, result: { attached: null, notice: null } }));
    await bridge.pickFolder('c1');
    expect(invoke).toHaveBeenCalledWith(PICK_FOLDER_CHANNEL, { chatId: 'c1', readOnly: false });
  });

  it('sends the attach mode when given, and refuses an unknown one', async () => {
    const { bridge, invoke } = setUp(async () => ({ ok: true, result: { attached: null, notice: null } }));
    await bridge.pickFolder('c1', false, 'review');
    expect(invoke).toHaveBeenCalledWith(PICK_FOLDER_CHANNEL, { chatId: 'c1', readOnly: false, mode: 'review' });
    const error = await rejection((bridge.pickFolder as (c: unknown, r: unknown, m: unknown) => Promise<unknown>)('c1', false, 'sideways'));
    expect(error.code).toBe('invalid_request');
  });

  it('sends what a Review-mode copy holds as given (main checks it), and refuses a contents that is not an object', async () => {
    const { bridge, invoke } = setUp(async () => ({ ok: true, result: { attached: null, notice: null } }));
    await bridge.pickFolder('c1', false, 'review', { ignored: true, include: ['.env'] });
    expect(invoke).toHaveBeenCalledWith(PICK_FOLDER_CHANNEL, { chatId: 'c1', readOnly: false, mode: 'review', contents: { ignored: true, include: ['.env'] } });
    for (const bad of ['all', ['.env'], null, 5]) {
      const error = await rejection((bridge.pickFolder as (c: unknown, r: unknown, m: unknown, x: unknown) => Promise<unknown>)('c1', false, 'review', bad));
      expect(error.code).toBe('invalid_request');
    }
    expect(invoke).toHaveBeenCalledTimes(1);
  });

  it('rejects with the refusal main sends back', async () => {
    const { bridge } = setUp(async () => ({ ok: false, error: { code: 'workspace_refused', message: 'Berth does not attach /etc.' } }));
    expect(await rejection(bridge.pickFolder('c1', false))).toMatchObject({ code: 'workspace_refused', message: 'Berth does not attach /etc.' });
  });

  it.each([
    [undefined, false],
    [5, false],
    ['', false],
    ['c1', 'yes'],
    ['c1', 1],
  ])('refuses (%j, %j) without sending anything', async (chatId, readOnly) => {
    const { bridge, invoke } = setUp();
    const error = await rejection((bridge.pickFolder as (c: unknown, r: unknown) => Promise<unknown>)(chatId, readOnly));
    expect(error.code).toBe('invalid_request');
    expect(invoke).not.toHaveBeenCalled();
  });
});

describe('createBridge: confirmFolder', () => {
  it('sends {token, attach} on berth:confirmFolder and resolves with what was attached', async () => {
    const attached = { hostPath: '/home/me/site', containerPath: '/workspace', readOnly: false, attachedAt: 1 };
    const { bridge, invoke } = setUp(async () => ({ ok: true, result: { attached, notice: 'recreated', confirm: null } }));
    await expect(bridge.confirmFolder('3f1c0a52-7f53-4b8e-9d0e-1f6a2b3c4d5e', true)).resolves.toEqual({ attached, notice: 'recreated', confirm: null });
    expect(invoke).toHaveBeenCalledExactlyOnceWith(CONFIRM_FOLDER_CHANNEL, { token: '3f1c0a52-7f53-4b8e-9d0e-1f6a2b3c4d5e', attach: true });
  });

  it.each([
    [undefined, true],
    ['', true],
    [{ path: '/etc' }, true],
    ['t', 'yes'],
    ['t', undefined],
  ])('refuses (%j, %j) without sending anything', async (token, attach) => {
    const { bridge, invoke } = setUp();
    const error = await rejection((bridge.confirmFolder as (t: unknown, a: unknown) => Promise<unknown>)(token, attach));
    expect(error.code).toBe('invalid_request');
    expect(invoke).not.toHaveBeenCalled();
  });
});

import { describe, expect, it, vi } from 'vitest';
import { BerthError } from '../../../shared/errors.js';
import { createDispatcher, notification } from './jsonRpc.js';

type Call = (method: string, params: unknown) => Promise<unknown>;

function dispatcher(call: Call, onInternalError = vi.fn()) {
  return { dispatch: createDispatcher({ call, onInternalError }), onInternalError };
}

const parse = (text: string | null) => (text === null ? null : (JSON.parse(text) as Record<string, unknown>));
const req = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });

describe('createDispatcher', () => {
  it('calls the method and returns its result with the same id', async () => {
    const call = vi.fn<Call>(async () => ({ chats: [] }));
    const { dispatch } = dispatcher(call);
    expect(parse(await dispatch(req('chats.list', { profile: 'default' }, 'a')))).toEqual({ jsonrpc: '2.0', id: 'a', result: { chats: [] } });
    expect(call).toHaveBeenCalledWith('chats.list', { profile: 'default' });
  });

  it('passes {} when params are absent and null when the result is undefined', async () => {
    const call = vi.fn<Call>(async () => undefined);
    const { dispatch } = dispatcher(call);
    expect(parse(await dispatch(req('profiles.list')))).toEqual({ jsonrpc: '2.0', id: 1, result: null });
    expect(call).toHaveBeenCalledWith('profiles.list', {});
  });

  it.each(['{', 'not json', '', '{"jsonrpc":"2.0",'])('answers %j with a parse error', async (text) => {
    const { dispatch } = dispatcher(async () => 1);
    expect(parse(await dispatch(text))).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('refuses batches clearly', async () => {
    const call = vi.fn<Call>(async () => 1);
    const { dispatch } = dispatcher(call);
    const out = parse(await dispatch(`[${req('chats.list')}]`));
    expect(out).toMatchObject({ id: null, error: { code: -32600 } });
    expect(String((out?.error as { message: string }).message)).toMatch(/batch/i);
    expect(call).not.toHaveBeenCalled();
  });

  it.each([
    ['a number', '42'],
    ['null', 'null'],
    ['a string', '"chats.list"'],
    ['no jsonrpc', '{"id":1,"method":"chats.list"}'],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":1,"method":"chats.list"}'],
    ['no method', '{"jsonrpc":"2.0","id":1}'],
    ['a numeric method', '{"jsonrpc":"2.0","id":1,"method":5}'],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"chats.list"}'],
    ['string params', '{"jsonrpc":"2.0","id":1,"method":"chats.list","params":"x"}'],
  ])('answers %s with -32600', async (_name, text) => {
    const call = vi.fn<Call>(async () => 1);
    const { dispatch } = dispatcher(call);
    expect(parse(await dispatch(text))).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(call).not.toHaveBeenCalled();
  });

  it('keeps a valid id on an invalid request', async () => {
    const { dispatch } = dispatcher(async () => 1);
    expect(parse(await dispatch('{"jsonrpc":"2.0","id":7,"method":""}'))).toMatchObject({ id: 7, error: { code: -32600 } });
  });

  it('answers an unknown method with -32601 without calling the core', async () => {
    const call = vi.fn<Call>(async () => 1);
    const { dispatch } = dispatcher(call);
    for (const method of ['nope', '__proto__', 'constructor', 'toString', 'chats']) {
      expect(parse(await dispatch(req(method)))).toMatchObject({ id: 1, error: { code: -32601 } });
    }
    expect(call).not.toHaveBeenCalled();
  });

  it('maps invalid_request to -32602 with data.code', async () => {
    const { dispatch } = dispatcher(async () => {
      throw new BerthError('invalid_request', 'The request for chats.create is not valid: title: too long.', { hint: 'Shorten it.' });
    });
    expect(parse(await dispatch(req('chats.create', { title: 'x' })))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'The request for chats.create is not valid: title: too long.',
        data: { code: 'invalid_request', hint: 'Shorten it.' },
      },
    });
  });

  it('answers positional params with -32602', async () => {
    const call = vi.fn<Call>(async () => 1);
    const { dispatch } = dispatcher(call);
    expect(parse(await dispatch(req('chats.list', ['default'])))).toMatchObject({ error: { code: -32602, data: { code: 'invalid_request' } } });
    expect(parse(await dispatch(req('chats.list', null)))).toMatchObject({ error: { code: -32602 } });
    expect(call).not.toHaveBeenCalled();
  });

  it('maps other BerthErrors to -32000 with code and hint', async () => {
    const { dispatch, onInternalError } = dispatcher(async () => {
      throw new BerthError('not_found', 'There is no chat "x".', { hint: 'Refresh the list.' });
    });
    expect(parse(await dispatch(req('chats.delete', { chatId: 'x' })))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'There is no chat "x".', data: { code: 'not_found', hint: 'Refresh the list.' } },
    });
    expect(onInternalError).not.toHaveBeenCalled();
  });

  it('hides unexpected errors behind -32603 and reports them', async () => {
    const { dispatch, onInternalError } = dispatcher(async () => {
      throw new Error('ENOENT /home/secret/path');
    });
    const out = await dispatch(req('chats.list', {}));
    expect(out).not.toContain('secret');
    expect(parse(out)).toMatchObject({ id: 1, error: { code: -32603, message: 'internal error', data: { code: 'internal' } } });
    expect(onInternalError).toHaveBeenCalledWith(expect.any(Error), 'chats.list');
  });

  it('survives results that cannot be serialised', async () => {
    const { dispatch } = dispatcher(async () => ({ n: 1n }));
    expect(parse(await dispatch(req('chats.list', {})))).toMatchObject({ id: 1, error: { code: -32603 } });
  });

  it('survives a throwing reporter', async () => {
    const dispatch = createDispatcher({
      call: async () => {
        throw new Error('boom');
      },
      onInternalError: () => {
        throw new Error('reporter broke');
      },
    });
    expect(parse(await dispatch(req('chats.list', {})))).toMatchObject({ error: { code: -32603 } });
  });

  it('dispatches notifications but never answers them', async () => {
    const call = vi.fn<Call>(async () => {
      throw new BerthError('not_found', 'gone');
    });
    const { dispatch } = dispatcher(call);
    expect(await dispatch(JSON.stringify({ jsonrpc: '2.0', method: 'terminal.ack', params: { terminalId: 't', chars: 5 } }))).toBeNull();
    expect(call).toHaveBeenCalledWith('terminal.ack', { terminalId: 't', chars: 5 });
    expect(await dispatch(JSON.stringify({ jsonrpc: '2.0', method: 'no.such.method' }))).toBeNull();
  });

  it('answers a null id like any other id', async () => {
    const { dispatch } = dispatcher(async () => 'ok');
    expect(parse(await dispatch(req('chats.list', {}, null)))).toEqual({ jsonrpc: '2.0', id: null, result: 'ok' });
  });

  it('uses a custom method table when given one', async () => {
    const dispatch = createDispatcher({ call: async () => 'ok', isMethod: (m) => m === 'x.y' });
    expect(parse(await dispatch(req('x.y')))).toMatchObject({ result: 'ok' });
    expect(parse(await dispatch(req('chats.list')))).toMatchObject({ error: { code: -32601 } });
  });
});

describe('notification', () => {
  it('has no id', () => {
    expect(JSON.parse(notification('chats.changed', { chatId: null }))).toEqual({ jsonrpc: '2.0', method: 'chats.changed', params: { chatId: null } });
  });
});

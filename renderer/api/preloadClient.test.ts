import { describe, expect, it } from 'vitest';
import { PreloadClient, type PreloadBridge } from './preloadClient';

function bridge(overrides: Partial<PreloadBridge>): PreloadBridge {
  return {
    call: () => Promise.resolve({}),
    on: () => () => {},
    pickFolder: () => Promise.resolve({ attached: null }),
    ...overrides,
  };
}

describe('PreloadClient', () => {
  it('maps the native picker to picked / cancelled', async () => {
    const attached = { hostPath: '/home/me/site', containerPath: '/workspace', readOnly: false, mode: 'readwrite' as const, review: null, attachedAt: 1, writeWarning: null };
    await expect(new PreloadClient(bridge({ pickFolder: () => Promise.resolve({ attached }) })).pickFolder('c', { mode: 'readwrite' })).resolves.toBe('picked');
    await expect(new PreloadClient(bridge({})).pickFolder('c', { mode: 'readwrite' })).resolves.toBe('cancelled');
    // With main's notice (the sandbox is recreated, and why), it is handed on.
    await expect(new PreloadClient(bridge({ pickFolder: () => Promise.resolve({ attached, notice: 'Recreated.' }) })).pickFolder('c', { mode: 'readwrite' })).resolves.toEqual({ notice: 'Recreated.' });
  });

  it('hands on a folder main holds for an answer, and answers it through the bridge', async () => {
    const attached = { hostPath: '/home/me/site', containerPath: '/workspace', readOnly: false, mode: 'readwrite' as const, review: null, attachedAt: 1, writeWarning: null };
    const answered: unknown[][] = [];
    const client = new PreloadClient(bridge({
      pickFolder: () => Promise.resolve({ attached: null, notice: null, confirm: { token: 'tok', reason: 'Attaching recreates the chat’s sandbox.', running: [{ terminalId: 't1', title: 'Terminal 1', processes: ['sleep 9'] }] } }),
      confirmFolder: (...args) => (answered.push(args), Promise.resolve({ attached: args[1] ? attached : null, notice: null, confirm: null })),
    }));
    await expect(client.pickFolder('c', { mode: 'readwrite' })).resolves.toEqual({ confirm: { token: 'tok', reason: 'Attaching recreates the chat’s sandbox.', running: [{ terminalId: 't1', title: 'Terminal 1', processes: ['sleep 9'] }] } });
    await expect(client.confirmFolder('tok', true)).resolves.toBe('picked');
    await expect(client.confirmFolder('tok', false)).resolves.toBe('cancelled');
    expect(answered).toEqual([['tok', true], ['tok', false]]);
  });

  it('passes the mode (and the readOnly boolean older bridges know) and what a Review-mode copy holds', async () => {
    const asked: unknown[][] = [];
    const client = new PreloadClient(bridge({ pickFolder: (...args) => (asked.push(args), Promise.resolve({ attached: null })) }));
    await client.pickFolder('c', { mode: 'readonly' });
    await client.pickFolder('c', { mode: 'readwrite' });
    await client.pickFolder('c', { mode: 'review', contents: { ignored: true, include: ['.env'] } });
    expect(asked).toEqual([
      ['c', true, 'readonly'],
      ['c', false, 'readwrite'],
      ['c', false, 'review', { ignored: true, include: ['.env'] }],
    ]);
  });

  it('keeps code and hint of a rejection, and strips Electron\'s invoke prefix from the message', async () => {
    const error = Object.assign(new Error("Error invoking remote method 'berth:call': Error: /etc is a system folder."), {
      code: 'workspace_refused',
      hint: 'Attach a project folder instead.',
    });
    const client = new PreloadClient(bridge({ call: () => Promise.reject(error) }));
    await expect(client.call('engine.status', {})).rejects.toMatchObject({
      message: '/etc is a system folder.',
      code: 'workspace_refused',
      hint: 'Attach a project folder instead.',
    });
  });

  it('reads the plain { name, code, message, hint } object the preload rejects with', async () => {
    const rejection = { name: 'BerthError', code: 'invalid_request', message: 'workspace.attach is not available in the desktop app.', hint: 'Use Attach folder….' };
    const client = new PreloadClient(bridge({ call: () => Promise.reject(rejection), pickFolder: () => Promise.reject(rejection) }));
    const expected = { message: rejection.message, code: 'invalid_request', hint: 'Use Attach folder….' };
    await expect(client.call('workspace.attach', { chatId: 'c', path: '/x' })).rejects.toMatchObject(expected);
    await expect(client.pickFolder('c', { mode: 'review' })).rejects.toMatchObject(expected);
    await expect(client.call('engine.status', {})).rejects.toBeInstanceOf(Error);
  });
});

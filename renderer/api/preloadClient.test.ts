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
    const attached = { hostPath: '/home/me/site', containerPath: '/workspace', readOnly: false, attachedAt: 1 };
    await expect(new PreloadClient(bridge({ pickFolder: () => Promise.resolve({ attached }) })).pickFolder('c', false)).resolves.toBe('picked');
    await expect(new PreloadClient(bridge({})).pickFolder('c', false)).resolves.toBe('cancelled');
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
    await expect(client.pickFolder('c', false)).rejects.toMatchObject(expected);
    await expect(client.call('engine.status', {})).rejects.toBeInstanceOf(Error);
  });
});

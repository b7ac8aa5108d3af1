import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_EGRESS_ALLOW } from '../../../shared/egress.js';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';

let f: FakeCore;
beforeEach(() => {
  f = fakeCore();
});
afterEach(async () => {
  await f.dispose();
});

const ask = (profile = 'default') => f.core.network.startingPoint({ profile });

describe('the first-chat question, through the core', () => {
  it('is asked on a fresh data folder, sets the default profile network, and is never asked again', async () => {
    expect(await ask()).toEqual({ ask: true });
    expect(await f.core.network.chooseStartingPoint({ choice: 'locked' })).toEqual({ applied: true, egress: 'none', egressAllow: [...DEFAULT_EGRESS_ALLOW] });
    const saved = (await f.core.profiles.list({})).profiles.find((p) => p.name === 'default');
    expect(saved?.settings.egress).toBe('none');
    expect(await ask()).toEqual({ ask: false });
    // A second window's late answer changes nothing.
    expect(await f.core.network.chooseStartingPoint({ choice: 'open' })).toMatchObject({ applied: false, egress: 'none' });
    // Changeable later in the profile form, and still not asked.
    await f.core.profiles.update({ name: 'default', settings: { egress: 'open' } });
    expect(await ask()).toEqual({ ask: false });
  });

  it('is not asked once a chat was made, even after it is deleted', async () => {
    const chat = await f.core.chats.create({ profile: 'default' });
    expect(await ask()).toEqual({ ask: false });
    await f.core.chats.delete({ chatId: chat.id });
    expect(await ask()).toEqual({ ask: false });
  });

  it('refuses an answer that is not one of the three', async () => {
    await expect(f.core.call('network.chooseStartingPoint', { choice: 'wide-open' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(f.core.call('network.chooseStartingPoint', { choice: 'open', egress: 'open' })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await ask()).toEqual({ ask: true });
  });
});

/** A profile asking for more CPUs than the engine has is refused when saved, with the engine's count. */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';

let f: FakeCore | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

describe('CPUs beyond the engine’s', () => {
  it('are refused on create and update with the engine’s count; within it they are saved', async () => {
    f = fakeCore();
    f.engine.machine = { cpus: 2, memoryBytes: 8 * 1024 ** 3 };
    const refused = f.core.profiles.create({ name: 'big', limits: { memoryMb: 1024, cpus: 4, pids: 256 } });
    await expect(refused).rejects.toMatchObject({ code: 'invalid_request', message: 'This Docker engine has 2 CPUs; a sandbox cannot have 4.', hint: 'Set CPUs to 2 or fewer.' });
    await f.core.profiles.create({ name: 'ok', limits: { memoryMb: 1024, cpus: 2, pids: 256 } });
    await expect(f.core.profiles.update({ name: 'ok', settings: { limits: { memoryMb: 1024, cpus: 3, pids: 256 } } })).rejects.toMatchObject({ hint: 'Set CPUs to 2 or fewer.' });
    expect((await f.core.profiles.list({})).profiles.find((p) => p.name === 'ok')?.settings.limits.cpus).toBe(2);
    // An engine that does not answer is not asked: the profile is saved, the start says what is wrong.
    f.engine.down = true;
    await f.core.profiles.update({ name: 'ok', settings: { limits: { memoryMb: 1024, cpus: 1, pids: 256 } } });
  });
});

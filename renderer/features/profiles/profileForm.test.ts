import { describe, expect, it } from 'vitest';
import { profileView } from '../../test/fakeApi';
import { changedSettings, engineFromForm, formFromProfile, NEW_PROFILE, settingsFromForm } from './profileForm';

describe('profile form values', () => {
  it('round-trips a profile into the settings to send', () => {
    const p = profileView('work', { egress: 'none', containerScope: 'shared', limits: { memoryMb: 1024, cpus: 1.5, pids: 256 }, retention: { idleStopMinutes: 0, onQuit: 'keep' }, warmPool: 2 });
    const result = settingsFromForm(formFromProfile(p));
    expect(result).toEqual({
      ok: true,
      settings: {
        egress: 'none',
        egressAllow: ['registry.npmjs.org', 'github.com'],
        containerScope: 'shared',
        image: 'debian:bookworm-slim',
        mountWorkspace: true,
        limits: { memoryMb: 1024, cpus: 1.5, pids: 256 },
        retention: { idleStopMinutes: 0, onQuit: 'keep' },
        warmPool: 2,
        setupCommand: null,
        agent: { baseUrl: null, model: null, approval: 'ask' },
        engine: { kind: 'default' },
      },
    });
  });

  it('round-trips each kind of engine, and an unchanged one is no change', () => {
    const tcp = { kind: 'tcp' as const, url: 'tcp://h:2376', tls: { ca: '/c/ca.pem', cert: '/c/cert.pem', key: '/c/key.pem' } };
    for (const engine of [tcp, { kind: 'ssh' as const, url: 'ssh://me@h', identityFile: null }, { kind: 'podman' as const, socketPath: '/run/podman/podman.sock' }, { kind: 'context' as const, name: 'far' }]) {
      const p = profileView('work', { engine });
      const result = settingsFromForm(formFromProfile(p));
      expect(result.ok && result.settings.engine).toEqual(engine);
      expect(result.ok && changedSettings(p.settings, result.settings)).toEqual({});
    }
  });

  it('checks the engine fields with the shared schema, each error on its field', () => {
    expect(engineFromForm({ ...NEW_PROFILE, engineKind: 'ssh', engineUrl: 'me@host', sshKey: 'id_rsa' })).toEqual({
      ok: false,
      errors: {
        engineUrl: 'An SSH engine is written ssh://user@host or ssh://user@host:port.',
        sshKey: 'Give the full path of the SSH key file (starting with /), or leave it empty to use your SSH agent.',
      },
    });
    expect(engineFromForm({ ...NEW_PROFILE, engineKind: 'podman', podmanSocket: '' })).toMatchObject({ ok: false, errors: { podmanSocket: expect.stringContaining('Podman socket') } });
    expect(engineFromForm({ ...NEW_PROFILE, engineKind: 'ssh', engineUrl: ' ssh://me@host:2222 ', sshKey: '' })).toEqual({ ok: true, setting: { kind: 'ssh', url: 'ssh://me@host:2222', identityFile: null } });
  });

  it('sends the agent settings, an empty field as none', () => {
    const p = profileView('work', { agent: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3', approval: 'auto' } });
    const values = formFromProfile(p);
    expect(values).toMatchObject({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3', approval: 'auto' });
    const result = settingsFromForm({ ...values, baseUrl: '  ', model: ' llama ' });
    expect(result.ok && result.settings.agent).toEqual({ baseUrl: null, model: 'llama', approval: 'auto' });
  });

  it('shares another profile’s provider, and going back to its own says so', () => {
    const shared = profileView('work', { agent: { baseUrl: null, model: null, approval: 'auto', providerFrom: 'home' } });
    const values = formFromProfile(shared);
    expect(values.providerFrom).toBe('home');
    const same = settingsFromForm(values);
    expect(same.ok && changedSettings(shared.settings, same.settings)).toEqual({});
    const own = settingsFromForm({ ...values, providerFrom: '', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(own.ok && changedSettings(shared.settings, own.settings).agent).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: null, approval: 'auto', providerFrom: null });
  });

  it('says in words that an image is needed, instead of the schema’s text', () => {
    const result = settingsFromForm({ ...NEW_PROFILE, image: '  ' });
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/^Choose an image for the sandbox: one of the engine's images, or Berth's own \(berth-sandbox:1\)/) });
  });

  it('says which number is not one', () => {
    expect(settingsFromForm({ ...NEW_PROFILE, memoryMb: 'lots' })).toEqual({ ok: false, message: 'Memory must be a number.' });
    expect(settingsFromForm({ ...NEW_PROFILE, pids: '1.5' })).toEqual({ ok: false, message: 'Process limit must be a whole number.' });
  });
});

describe('changedSettings', () => {
  it('names only the settings that differ, nested objects whole', () => {
    const p = profileView('work');
    const form = { ...formFromProfile(p), cpus: '4', egress: 'none' as const };
    const result = settingsFromForm(form);
    if (!result.ok) throw new Error(result.message);
    expect(changedSettings(p.settings, result.settings)).toEqual({ egress: 'none', limits: { memoryMb: 2048, cpus: 4, pids: 512 } });
    const same = settingsFromForm(formFromProfile(p));
    if (!same.ok) throw new Error(same.message);
    expect(changedSettings(p.settings, same.settings)).toEqual({});
  });

  it('does not count a different key order as a change', () => {
    const p = profileView('work', { agent: { baseUrl: null, model: 'm', approval: 'ask' } });
    expect(changedSettings(p.settings, { agent: { approval: 'ask', model: 'm', baseUrl: null } })).toEqual({});
    expect(changedSettings(p.settings, { agent: { approval: 'auto', model: 'm', baseUrl: null } })).toEqual({ agent: { approval: 'auto', model: 'm', baseUrl: null } });
  });
});

import { describe, expect, it } from 'vitest';
import { clientRequestProblem } from './clientPolicy.js';

describe('clientRequestProblem', () => {
  it('refuses host-level settings from the window, in a create or an edit', () => {
    expect(clientRequestProblem('profiles.create', { name: 'x', backend: 'local' })).toMatch(/cannot change backend/);
    expect(clientRequestProblem('profiles.update', { name: 'default', settings: { backend: 'local' } })).toMatch(/backend/);
    expect(clientRequestProblem('profiles.create', { name: 'x', staticMounts: [{ source: '/srv', target: '/data' }] })).toMatch(/staticMounts/);
    expect(clientRequestProblem('profiles.update', { name: 'x', settings: { homeTemplate: '/home/u' } })).toMatch(/homeTemplate/);
    expect(clientRequestProblem('profiles.create', { name: 'x', sandboxUser: '1001:1001' })).toMatch(/sandboxUser/);
  });
  it('allows everything a sandboxed profile needs, and other methods', () => {
    expect(clientRequestProblem('profiles.create', { name: 'x', backend: 'docker', image: 'alpine', egress: 'none' })).toBeNull();
    expect(clientRequestProblem('profiles.update', { name: 'x', settings: { limits: { memoryMb: 512, cpus: 1, pids: 64 } } })).toBeNull();
    expect(clientRequestProblem('sandbox.exec', { chatId: 'c', command: 'ls' })).toBeNull();
  });

  it("lets the profile form set the engine of every kind (main checks the files it names: engineSettingCheck)", () => {
    expect(clientRequestProblem('profiles.update', { name: 'x', settings: { engine: { kind: 'context', name: 'box' } } })).toBeNull();
    expect(clientRequestProblem('profiles.create', { name: 'x', engine: { kind: 'default' } })).toBeNull();
    const tcp = { kind: 'tcp', url: 'tcp://h:2376', tls: { ca: '/a', cert: '/b', key: '/c' } };
    expect(clientRequestProblem('profiles.update', { name: 'x', settings: { engine: tcp } })).toBeNull();
    expect(clientRequestProblem('profiles.create', { name: 'x', engine: { kind: 'ssh', url: 'ssh://me@box', identityFile: null } })).toBeNull();
    // Host-level settings beside an engine are still refused.
    expect(clientRequestProblem('profiles.create', { name: 'x', engine: { kind: 'default' }, sandboxUser: '0:0' })).toMatch(/sandboxUser/);
  });
});

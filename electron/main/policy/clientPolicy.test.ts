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

  it('lets a page pick the default engine or a Docker context, never an endpoint with its own key files or socket', () => {
    expect(clientRequestProblem('profiles.update', { name: 'x', settings: { engine: { kind: 'context', name: 'box' } } })).toBeNull();
    expect(clientRequestProblem('profiles.create', { name: 'x', engine: { kind: 'default' } })).toBeNull();
    const tcp = { kind: 'tcp', url: 'tcp://h:2376', tls: { ca: '/a', cert: '/b', key: '/home/me/.ssh/id_rsa' } };
    expect(clientRequestProblem('profiles.update', { name: 'x', settings: { engine: tcp } })).toMatch(/cannot change engine/);
    expect(clientRequestProblem('profiles.create', { name: 'x', engine: { kind: 'podman', socketPath: '/run/podman/podman.sock' } })).toMatch(/engine/);
  });
});

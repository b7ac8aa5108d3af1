import { describe, expect, it } from 'vitest';
import { EngineSetting } from '../../../shared/contract.js';
import { chooseEngine, type EngineChoiceEnv } from './engineChoice.js';

const base: EngineChoiceEnv = {
  env: {},
  platform: 'linux',
  homeDir: '/home/me',
  exists: (p) => p === '/var/run/docker.sock',
  currentContextHost: null,
  context: (name) =>
    name === 'box'
      ? { host: 'tcp://10.1.2.3:2376', tlsFiles: { ca: '/c/ca.pem', cert: '/c/cert.pem', key: '/c/key.pem' } }
      : name === 'far'
        ? { host: 'ssh://me@far.example', tlsFiles: null }
        : null,
};

describe('chooseEngine', () => {
  it('the default engine is the one the docker command uses, and it is local', () => {
    const c = chooseEngine({ kind: 'default' }, base);
    expect(c.endpoint).toEqual({ kind: 'socket', socketPath: '/var/run/docker.sock' });
    expect(c.ref).toMatchObject({ kind: 'default', remote: false, id: 'unix:///var/run/docker.sock' });
  });

  it('a context by name gets its host and its own TLS files', () => {
    const c = chooseEngine({ kind: 'context', name: 'box' }, base);
    expect(c.endpoint).toMatchObject({ kind: 'tcp', host: '10.1.2.3', port: 2376, tls: true, tlsFiles: { cert: '/c/cert.pem' } });
    expect(c.ref.label).toBe('box (tcp://10.1.2.3:2376 (TLS))');
    expect(c.ref.remote).toBe(true);
    expect(chooseEngine({ kind: 'context', name: 'far' }, base).endpoint).toMatchObject({ kind: 'ssh', host: 'ssh://me@far.example' });
  });

  it('an unknown context is a clear error, not the default engine', () => {
    expect(() => chooseEngine({ kind: 'context', name: 'nope' }, base)).toThrow(/context "nope" is not in your Docker configuration/);
  });

  it('ssh and tcp engines are remote; one id per distinct endpoint', () => {
    const ssh = chooseEngine(EngineSetting.parse({ kind: 'ssh', url: 'ssh://me@127.0.0.1:2222' }), base);
    expect(ssh.ref).toMatchObject({ kind: 'ssh', remote: true, label: 'ssh://me@127.0.0.1:2222' });
    const tcp = chooseEngine({ kind: 'tcp', url: 'tcp://127.0.0.1:23760', tls: { ca: '/t/ca', cert: '/t/cert', key: '/t/key' } }, base);
    expect(tcp.endpoint).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 23760, tls: true, tlsFiles: { ca: '/t/ca', cert: '/t/cert', key: '/t/key' } });
    expect(tcp.ref.remote).toBe(true);
    const again = chooseEngine({ kind: 'tcp', url: 'tcp://127.0.0.1:23760/', tls: { ca: '/t/ca', cert: '/t/cert', key: '/t/key' } }, base);
    expect(again.ref.id).toBe(tcp.ref.id);
    expect(ssh.ref.id).not.toBe(tcp.ref.id);
  });

  it('a Podman socket is a local engine of its own', () => {
    const c = chooseEngine({ kind: 'podman', socketPath: '/run/podman/podman.sock' }, base);
    expect(c.ref).toMatchObject({ kind: 'podman', remote: false, id: 'unix:///run/podman/podman.sock' });
  });

  it('the contract refuses malformed endpoints with words', () => {
    expect(EngineSetting.safeParse({ kind: 'ssh', url: 'ssh://host-without-user' }).success).toBe(false);
    expect(EngineSetting.safeParse({ kind: 'tcp', url: 'tcp://h:1', tls: { ca: 'rel', cert: '/c', key: '/k' } }).success).toBe(false);
    expect(EngineSetting.safeParse({ kind: 'tcp', url: 'tcp://h' }).success).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { resolveEngineEndpoint } from './engineEndpoint.js';

const nothing = (): boolean => false;
const only = (...paths: string[]) => (p: string): boolean => paths.includes(p);

describe('resolveEngineEndpoint: DOCKER_HOST', () => {
  it('uses a unix:// socket path', () => {
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'socket', socketPath: '/run/user/1000/docker.sock',
    });
  });

  it('uses tcp:// without TLS on port 2375 by default', () => {
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'tcp://10.0.0.5' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'tcp', host: '10.0.0.5', port: 2375, tls: false,
    });
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'tcp://docker.local:2375' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'tcp', host: 'docker.local', port: 2375, tls: false,
    });
  });

  it('keeps an explicit tcp port', () => {
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'tcp://docker.local:12345' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'tcp', host: 'docker.local', port: 12345, tls: false,
    });
  });

  it('keeps an explicit tcp port 80', () => {
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'tcp://docker.local:80' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'tcp', host: 'docker.local', port: 80, tls: false,
    });
  });

  it('uses TLS on port 2376 by default when DOCKER_TLS_VERIFY=1', () => {
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'tcp://10.0.0.5', DOCKER_TLS_VERIFY: '1' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'tcp', host: '10.0.0.5', port: 2376, tls: true,
    });
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'tcp://10.0.0.5:3000', DOCKER_TLS_VERIFY: '1' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'tcp', host: '10.0.0.5', port: 3000, tls: true,
    });
  });

  it('passes an ssh:// host through', () => {
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'ssh://me@build-box' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'ssh', host: 'ssh://me@build-box',
    });
  });

  it('ignores a blank DOCKER_HOST', () => {
    expect(resolveEngineEndpoint({ DOCKER_HOST: '  ' }, 'linux', '/home/u', nothing)).toEqual({
      kind: 'socket', socketPath: '/var/run/docker.sock',
    });
  });
});

describe('resolveEngineEndpoint: default socket', () => {
  it('uses /var/run/docker.sock on Linux', () => {
    expect(resolveEngineEndpoint({}, 'linux', '/home/u', only('/var/run/docker.sock'))).toEqual({
      kind: 'socket', socketPath: '/var/run/docker.sock',
    });
    expect(resolveEngineEndpoint({}, 'linux', '/home/u', nothing)).toEqual({ kind: 'socket', socketPath: '/var/run/docker.sock' });
  });

  it('uses Docker Desktop\'s socket on macOS when /var/run/docker.sock does not exist', () => {
    expect(resolveEngineEndpoint({}, 'darwin', '/Users/me', only('/Users/me/.docker/run/docker.sock'))).toEqual({
      kind: 'socket', socketPath: '/Users/me/.docker/run/docker.sock',
    });
  });

  it('prefers /var/run/docker.sock on macOS when it exists', () => {
    expect(resolveEngineEndpoint({}, 'darwin', '/Users/me', only('/var/run/docker.sock', '/Users/me/.docker/run/docker.sock'))).toEqual({
      kind: 'socket', socketPath: '/var/run/docker.sock',
    });
  });

  it('uses the docker_engine named pipe on Windows', () => {
    expect(resolveEngineEndpoint({}, 'win32', 'C:\\Users\\me', nothing)).toEqual({ kind: 'socket', socketPath: '\\\\.\\pipe\\docker_engine' });
  });
});

describe('the Docker CLI context', () => {
  const none = () => false;
  it("uses the current context's host when DOCKER_HOST is unset", () => {
    expect(resolveEngineEndpoint({}, 'darwin', '/Users/u', none, 'unix:///Users/u/.docker/run/docker.sock')).toEqual({
      kind: 'socket',
      socketPath: '/Users/u/.docker/run/docker.sock',
    });
  });
  it('DOCKER_HOST wins over the context', () => {
    expect(resolveEngineEndpoint({ DOCKER_HOST: 'tcp://h:2375' }, 'linux', '/home/u', none, 'unix:///ctx.sock')).toMatchObject({ kind: 'tcp', host: 'h' });
  });
  it('a context with an unusable host is an error that names the context, not DOCKER_HOST', () => {
    expect(() => resolveEngineEndpoint({}, 'linux', '/home/u', none, 'bogus')).toThrow(/current Docker context/);
  });
});

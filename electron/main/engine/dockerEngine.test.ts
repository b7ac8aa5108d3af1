import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BerthError } from '../../../shared/errors.js';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { DockerEngine } from './dockerEngine.js';

const temp = new TempDirs();

afterEach(() => {
  vi.unstubAllEnvs();
  temp.removeAll();
});

async function rejection(promise: Promise<unknown>): Promise<BerthError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BerthError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const tlsEndpoint = { kind: 'tcp', host: '127.0.0.1', port: 1, tls: true } as const;

describe('DockerEngine over TLS', () => {
  it('is built without throwing when the TLS files are missing, and every call then says where they were looked for', async () => {
    const certDir = temp.make();
    vi.stubEnv('DOCKER_CERT_PATH', certDir);
    const engine = new DockerEngine(tlsEndpoint);
    const error = await rejection(engine.ping());
    expect(error.code).toBe('engine_unreachable');
    expect(error.message).toContain(certDir);
    expect(error.message).toContain('ca.pem, cert.pem, key.pem');
    expect(error.hint).toMatch(/DOCKER_CERT_PATH/);
    for (const call of [
      engine.hasImage('x'),
      engine.ensureNetwork('berth-x', {}),
      engine.findContainers({}),
      engine.inspectContainer('x'),
      engine.removeContainer('x'),
    ]) {
      expect((await rejection(call)).code).toBe('engine_unreachable');
    }
  });

  it('names only the files that are missing', async () => {
    const certDir = temp.make();
    fs.writeFileSync(path.join(certDir, 'ca.pem'), 'x');
    const error = await rejection(new DockerEngine(tlsEndpoint, { certPath: certDir }).ping());
    expect(error.message).toContain('cert.pem, key.pem');
    expect(error.message).not.toContain('ca.pem');
  });

  it('looks in ~/.docker when DOCKER_CERT_PATH is not set', async () => {
    vi.stubEnv('DOCKER_CERT_PATH', '');
    vi.stubEnv('HOME', temp.make());
    const error = await rejection(new DockerEngine(tlsEndpoint).ping());
    expect(error.message).toContain(path.join(process.env.HOME as string, '.docker'));
  });

  it('hands the TLS files from DOCKER_CERT_PATH to the connection', () => {
    const certDir = temp.make();
    for (const file of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(certDir, file), `contents of ${file}`);
    vi.stubEnv('DOCKER_CERT_PATH', certDir);
    const engine = new DockerEngine(tlsEndpoint);
    const modem = (engine as unknown as { docker: { modem: { ca?: Buffer; cert?: Buffer; key?: Buffer; protocol?: string } } }).docker.modem;
    expect([modem.protocol, String(modem.ca), String(modem.cert), String(modem.key)]).toEqual([
      'https',
      'contents of ca.pem',
      'contents of cert.pem',
      'contents of key.pem',
    ]);
  });

  it('needs no certificates for a plain tcp endpoint', async () => {
    vi.stubEnv('DOCKER_CERT_PATH', temp.make());
    const error = await rejection(new DockerEngine({ kind: 'tcp', host: '127.0.0.1', port: 1, tls: false }).ping());
    expect(error.code).toBe('engine_unreachable');
    expect(error.message).not.toMatch(/TLS/);
  });
});

describe('DockerEngine: an engine that nothing answers', () => {
  it("says what to check for the kind of engine it is: local Docker, Podman's socket, an SSH host, a TCP address", async () => {
    const dir = temp.make();
    const hintFor = async (endpoint: ConstructorParameters<typeof DockerEngine>[0]) => {
      const engine = new DockerEngine(endpoint, { knownHostsFiles: [] });
      try {
        const error = await rejection(engine.ping());
        expect(error.code).toBe('engine_unreachable');
        return error.hint ?? '';
      } finally {
        engine.close();
      }
    };
    // Before, all four said "Start Docker (Docker Desktop, Colima, or the docker service)".
    expect(await hintFor({ kind: 'socket', socketPath: path.join(dir, 'docker.sock') })).toMatch(/^Start Docker \(Docker Desktop, Colima, or the docker service\)/);
    expect(await hintFor({ kind: 'socket', socketPath: path.join(dir, 'podman', 'podman.sock') })).toMatch(/^Start Podman's API service \(systemctl start podman\.socket, or systemctl --user start podman\.socket\) and try again/);
    const ssh = await hintFor({ kind: 'ssh', host: 'ssh://me@127.0.0.1:1' });
    expect(ssh).toMatch(/127\.0\.0\.1 is up and its SSH server listens on port 1/);
    expect(ssh).toMatch(/Docker runs there \(ssh -p 1 me@127\.0\.0\.1 docker info\)/);
    expect(ssh).not.toMatch(/Docker Desktop/);
    const tcp = await hintFor({ kind: 'tcp', host: '127.0.0.1', port: 1, tls: false });
    expect(tcp).toMatch(/engine listens on 127\.0\.0\.1:1/);
    expect(tcp).not.toMatch(/Docker Desktop/);
  });
});

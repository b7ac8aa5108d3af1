import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rejectionCode, TempDirs } from '../../../test/support/tempDirs.js';
import { createEngine, DockerEngine, type Engine } from './dockerEngine.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());


/** Every method of the Engine interface, called once each when asked (one at a time: no rejection waits unhandled). */
function everyCall(engine: Engine): [string, () => Promise<unknown>][] {
  return [
    ['ping', () => engine.ping()],
    ['hasImage', () => engine.hasImage('berth-test:busybox')],
    ['pullImage', () => engine.pullImage('berth-test:busybox', () => undefined)],
    ['ensureNetwork', () => engine.ensureNetwork('berth-x', {})],
    ['removeNetwork', () => engine.removeNetwork('berth-x')],
    ['findContainers', () => engine.findContainers({})],
    ['inspectContainer', () => engine.inspectContainer('x')],
    ['createContainer', () => engine.createContainer({ name: 'x', Image: 'x' } as never)],
    ['attach', () => engine.attach('x')],
    ['startContainer', () => engine.startContainer('x')],
    ['stopContainer', () => engine.stopContainer('x', 1)],
    ['removeContainer', () => engine.removeContainer('x')],
    ['execOnce', () => engine.execOnce('x', ['true'], 'root')],
    ['execTty', () => engine.execTty('x', { cmd: ['sh'], user: 'root', env: [], workingDir: '/', cols: 80, rows: 24 })],
  ];
}

const tls = { kind: 'tcp', host: '127.0.0.1', port: 1, tls: true } as const;

describe('createEngine', () => {
  it('returns the unavailable engine, labelled with the endpoint, when the TLS files are missing', async () => {
    const certPath = temp.make();
    const engine = createEngine(tls, { certPath });
    expect(engine).not.toBeInstanceOf(DockerEngine);
    expect(engine.endpointLabel).toBe('https://127.0.0.1:1');
    await expect(engine.ping()).rejects.toThrow(certPath);
    for (const [name, call] of everyCall(engine)) expect([name, await rejectionCode(call())]).toEqual([name, 'engine_unreachable']);
  });

  it('returns a DockerEngine when they are there, or when the endpoint needs none', () => {
    const certPath = temp.make();
    for (const file of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(certPath, file), 'x');
    expect(createEngine(tls, { certPath })).toBeInstanceOf(DockerEngine);
    expect(createEngine({ kind: 'socket', socketPath: path.join(certPath, 'none.sock') })).toBeInstanceOf(DockerEngine);
  });
});

describe('DockerEngine', () => {
  it('maps the failure of every call, through its one call helper, to a BerthError that says the engine is unreachable', async () => {
    const engine = new DockerEngine({ kind: 'socket', socketPath: path.join(temp.make(), 'no-engine.sock') });
    for (const [name, call] of everyCall(engine)) expect([name, await rejectionCode(call())]).toEqual([name, 'engine_unreachable']);
  });
});

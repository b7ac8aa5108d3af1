import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentContextHost, listContexts } from './dockerContext.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function dockerConfig(current: string | null, contexts: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ctx-'));
  dirs.push(dir);
  if (current !== null) fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ currentContext: current }));
  for (const [name, host] of Object.entries(contexts)) {
    const meta = path.join(dir, 'contexts', 'meta', createHash('sha256').update(name).digest('hex'));
    fs.mkdirSync(meta, { recursive: true });
    fs.writeFileSync(path.join(meta, 'meta.json'), JSON.stringify({ Name: name, Endpoints: { docker: { Host: host } } }));
  }
  return dir;
}

describe('currentContextHost', () => {
  it("reads the host of the CLI's current context", () => {
    const dir = dockerConfig('colima', { colima: 'unix:///home/u/.colima/default/docker.sock' });
    expect(currentContextHost({ DOCKER_CONFIG: dir }, '/nowhere')).toBe('unix:///home/u/.colima/default/docker.sock');
  });
  it('DOCKER_CONTEXT picks another context', () => {
    const dir = dockerConfig('colima', { colima: 'unix:///a.sock', remote: 'tcp://10.0.0.5:2375' });
    expect(currentContextHost({ DOCKER_CONFIG: dir, DOCKER_CONTEXT: 'remote' }, '/nowhere')).toBe('tcp://10.0.0.5:2375');
  });
  it('the default context, no config, or a broken one mean no context', () => {
    expect(currentContextHost({ DOCKER_CONFIG: dockerConfig('default', {}) }, '/nowhere')).toBeNull();
    expect(currentContextHost({ DOCKER_CONFIG: dockerConfig(null, {}) }, '/nowhere')).toBeNull();
    expect(currentContextHost({ DOCKER_CONFIG: dockerConfig('missing', {}) }, '/nowhere')).toBeNull();
  });
});

describe('listContexts', () => {
  it('lists the CLI\'s default and every stored context by name, marking the current one', () => {
    const dir = dockerConfig('remote', { remote: 'tcp://10.0.0.5:2376', colima: 'unix:///a.sock' });
    // A broken entry is left out, as the CLI cannot use it either.
    fs.mkdirSync(path.join(dir, 'contexts', 'meta', 'broken'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'contexts', 'meta', 'broken', 'meta.json'), '{');
    expect(listContexts({ DOCKER_CONFIG: dir }, '/nowhere', '/var/run/docker.sock')).toEqual([
      { name: 'default', host: '/var/run/docker.sock', current: false },
      { name: 'colima', host: 'unix:///a.sock', current: false },
      { name: 'remote', host: 'tcp://10.0.0.5:2376', current: true },
    ]);
    expect(listContexts({ DOCKER_CONFIG: dir, DOCKER_CONTEXT: 'colima' }, '/nowhere', '/s').map((c) => c.current)).toEqual([false, true, false]);
    expect(listContexts({ DOCKER_CONFIG: path.join(dir, 'none') }, '/nowhere', '/s')).toEqual([{ name: 'default', host: '/s', current: true }]);
  });
});

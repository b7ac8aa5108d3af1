import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentContextHost } from './dockerContext.js';

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

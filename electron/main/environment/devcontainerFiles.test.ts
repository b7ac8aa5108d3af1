import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contextFiles, findConfigs, readConfig } from './devcontainerFiles.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-devc-'));
  made.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('devcontainer files', () => {
  it('finds the spec’s three places in its order', () => {
    const dir = folder({ '.devcontainer/devcontainer.json': '{}', '.devcontainer.json': '{}', '.devcontainer/py/devcontainer.json': '{}', '.devcontainer/node/devcontainer.json': '{}' });
    expect(findConfigs(dir)).toEqual(['.devcontainer/devcontainer.json', '.devcontainer.json', '.devcontainer/node/devcontainer.json', '.devcontainer/py/devcontainer.json']);
  });

  it('reads JSON with comments and trailing commas, and says where a syntax error is', () => {
    const dir = folder({ '.devcontainer.json': '// c\n{ "image": "x", /* y */ }\n', 'bad/devcontainer.json': '{\n  "image": \n}' });
    expect(readConfig(dir, '.devcontainer.json').value).toEqual({ image: 'x' });
    expect(() => readConfig(dir, 'bad/devcontainer.json')).toThrow(/line 3, column 1/);
  });

  it('never reads through a symbolic link: a file or a folder on the way', () => {
    const secret = folder({ 'id_rsa': 'PRIVATE KEY' });
    const dir = folder({});
    fs.symlinkSync(path.join(secret, 'id_rsa'), path.join(dir, '.devcontainer.json'));
    fs.symlinkSync(secret, path.join(dir, '.devcontainer'));
    expect(findConfigs(dir)).toEqual([]);
    expect(() => readConfig(dir, '.devcontainer.json')).toThrow(/symbolic link/);
  });

  it('lists the build context after .dockerignore (the Dockerfile always), links as links, and its digest follows the contents', () => {
    const dir = folder({ 'Dockerfile': 'FROM x', '.dockerignore': 'node_modules\n*.log\nDockerfile\n', 'src/a.ts': 'a', 'node_modules/m/i.js': 'm', 'x.log': 'l' });
    fs.symlinkSync('/etc/shadow', path.join(dir, 'link'));
    const first = contextFiles(dir, '.', 'Dockerfile');
    expect(first.files).toEqual(['.dockerignore', 'Dockerfile', 'link', 'src/a.ts']);
    fs.writeFileSync(path.join(dir, 'node_modules/m/i.js'), 'changed');
    expect(contextFiles(dir, '.', 'Dockerfile').digest).toBe(first.digest);
    fs.writeFileSync(path.join(dir, 'src/a.ts'), 'b');
    expect(contextFiles(dir, '.', 'Dockerfile').digest).not.toBe(first.digest);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { browseFolders } from './folderBrowser.js';

const home = process.env.HOME;
let dir: string | undefined;
afterEach(() => {
  process.env.HOME = home;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('where the folder picker starts', () => {
  it('at home when attach accepts it; else at a work folder in it that attach accepts; and says why a folder is refused', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-browse-'));
    for (const d of ['.ssh', 'Downloads', 'projects']) fs.mkdirSync(path.join(dir, d));
    process.env.HOME = dir;
    expect(browseFolders(undefined).path).toBe(dir);

    const refuse = (f: string) => (f === dir ? `${f} holds credentials.` : null);
    const start = browseFolders(undefined, refuse);
    expect(start).toMatchObject({ path: path.join(dir, 'projects'), refused: null });
    expect(browseFolders(dir, refuse)).toMatchObject({ path: dir, refused: `${dir} holds credentials.` });
    // Hidden folders are not listed.
    expect(browseFolders(dir, refuse).entries.map((e) => e.name)).toEqual(['Downloads', 'projects']);
  });
});

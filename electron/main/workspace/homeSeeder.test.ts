import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TempDirs, berthErrorOf } from '../../../test/support/tempDirs.js';
import { prepareHome } from './homeSeeder.js';

const temp = new TempDirs();
let root: string;
let template: string;
let home: string;

function write(base: string, rel: string, content: string): void {
  const file = path.join(base, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function files(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    out.push(r);
    if (e.isDirectory()) out.push(...files(dir, r));
  }
  return out.sort();
}

const errorOf = berthErrorOf;

beforeEach(() => {
  root = temp.make();
  template = path.join(root, 'template');
  home = path.join(root, 'data', 'homes', 'chat-1');
  write(template, '.bashrc', 'export EDITOR=vim\n');
  write(template, '.gitconfig', '[user]\n  name = U\n');
  write(template, '.config/app/settings.json', '{"theme":"dark"}');
  write(template, '.bash_history', 'curl -H "Authorization: secret"\n');
  write(template, '.ssh/id_ed25519', 'PRIVATE KEY');
  write(template, '.aws/credentials', '[default]\naws_secret_access_key=x\n');
});

afterEach(() => temp.removeAll());

describe('prepareHome', () => {
  it('creates an empty private home when there is no template', () => {
    prepareHome(home, null, null);
    expect(fs.statSync(home).isDirectory()).toBe(true);
    expect(fs.readdirSync(home)).toEqual([]);
    expect(fs.statSync(home).mode & 0o077).toBe(0);
  });

  it('seeds configuration files and never history or credentials', () => {
    prepareHome(home, template, null);
    expect(files(home)).toEqual(['.bashrc', '.config', '.config/app', '.config/app/settings.json', '.gitconfig']);
    expect(fs.readFileSync(path.join(home, '.config/app/settings.json'), 'utf8')).toBe('{"theme":"dark"}');
    expect(fs.readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('export EDITOR=vim\n');
  });

  it('does not overwrite a file the chat changed when seeding again, but adds new template files', () => {
    prepareHome(home, template, null);
    fs.writeFileSync(path.join(home, '.bashrc'), 'changed by the chat\n');
    fs.rmSync(path.join(home, '.gitconfig'));
    write(template, '.config/app/extra.toml', 'x = 1');
    prepareHome(home, template, null);
    expect(fs.readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('changed by the chat\n');
    expect(fs.existsSync(path.join(home, '.config/app/extra.toml'))).toBe(true);
    expect(fs.existsSync(path.join(home, '.gitconfig'))).toBe(true);
  });

  it('refuses a configured template that is missing, before creating the home', () => {
    const error = errorOf(() => prepareHome(home, path.join(root, 'no-such-template'), null));
    expect(error.code).toBe('home_template_failed');
    expect(error.message).toContain('no-such-template');
    expect(fs.existsSync(home)).toBe(false);
  });

  it('refuses a configured template that is a file, before creating the home', () => {
    const file = path.join(root, 'template.txt');
    fs.writeFileSync(file, 'x');
    expect(errorOf(() => prepareHome(home, file, null)).code).toBe('home_template_failed');
    expect(fs.existsSync(home)).toBe(false);
  });

  it('does not follow symlinks in the template', () => {
    const secrets = path.join(root, 'secrets');
    write(secrets, 'plain.conf', 'looks harmless');
    fs.symlinkSync(path.join(secrets, 'plain.conf'), path.join(template, '.inputrc'));
    fs.symlinkSync(secrets, path.join(template, '.config', 'linked-dir'));
    prepareHome(home, template, null);
    expect(fs.existsSync(path.join(home, '.inputrc'))).toBe(false);
    expect(fs.existsSync(path.join(home, '.config', 'linked-dir'))).toBe(false);
    expect(files(home)).not.toContain('.config/linked-dir/plain.conf');
  });

  it('never writes outside the home through a symlink the sandbox left in it', () => {
    prepareHome(home, null, null);
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    // The sandbox owns its home and can plant links in it; the host resolves them on the next seeding.
    fs.symlinkSync(outside, path.join(home, '.config'));
    prepareHome(home, template, null);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('seeds only the configuration files of a home-like template (E10)', () => {
    const homeLike = path.join(root, 'home-like');
    write(homeLike, 'Documents/taxes.pdf', '%PDF');
    write(homeLike, '.mozilla/firefox/x/key4.db', 'keys');
    write(homeLike, '.config/google-chrome/Default/Cookies', 'cookies');
    write(homeLike, '.local/share/keyrings/login.keyring', 'keyring');
    write(homeLike, '.config/rclone/rclone.conf', '[drive]\ntoken = x\n');
    write(homeLike, '.bashrc', 'export EDITOR=vim\n');
    write(homeLike, '.gitconfig', '[user]\n  name = U\n');
    write(homeLike, '.config/nvim/init.lua', 'vim.o.number = true');
    prepareHome(home, homeLike, null);
    expect(files(home).filter((f) => fs.statSync(path.join(home, f)).isFile())).toEqual(['.bashrc', '.config/nvim/init.lua', '.gitconfig']);
    expect(files(home)).toEqual(['.bashrc', '.config', '.config/nvim', '.config/nvim/init.lua', '.gitconfig']);
  });

  it('skips a file over 1 MiB and seeds the rest', () => {
    write(template, '.config/app/big.json', 'x'.repeat(1024 * 1024 + 1));
    write(template, '.config/app/just-fits.json', 'x'.repeat(1024 * 1024));
    prepareHome(home, template, null);
    expect(fs.existsSync(path.join(home, '.config/app/big.json'))).toBe(false);
    expect(fs.statSync(path.join(home, '.config/app/just-fits.json')).size).toBe(1024 * 1024);
    expect(fs.existsSync(path.join(home, '.config/app/settings.json'))).toBe(true);
  });

  it('stops seeding, without an error, once 16 MiB are copied', () => {
    const big = path.join(root, 'big-template');
    const mib = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 20; i += 1) write(big, `.config/app/part-${String(i).padStart(2, '0')}.json`, mib);
    write(big, '.config/zz/last.toml', 'x = 1');
    prepareHome(home, big, null);
    const seeded = fs.readdirSync(path.join(home, '.config/app')).sort();
    expect(seeded).toHaveLength(16);
    expect(seeded[15]).toBe('part-15.json');
    expect(fs.existsSync(path.join(home, '.config/zz/last.toml'))).toBe(false);
  });

  it('keeps the mode of a seeded file', () => {
    write(template, '.config/app/hook.sh', '#!/bin/sh\n');
    fs.chmodSync(path.join(template, '.config/app/hook.sh'), 0o750);
    prepareHome(home, template, null);
    expect(fs.statSync(path.join(home, '.config/app/hook.sh')).mode & 0o777).toBe(0o750);
  });

  it.runIf(process.platform !== 'win32')('skips a pipe in the template instead of waiting on it', () => {
    const fifo = path.join(template, '.config/app/pipe');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return;
    }
    prepareHome(home, template, null);
    expect(fs.existsSync(path.join(home, '.config/app/pipe'))).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)('gives the new home and seeded files to the sandbox user', () => {
    prepareHome(home, template, { uid: 4321, gid: 4322 });
    for (const p of [home, path.join(home, '.bashrc'), path.join(home, '.config/app'), path.join(home, '.config/app/settings.json')]) {
      const st = fs.lstatSync(p);
      expect([st.uid, st.gid]).toEqual([4321, 4322]);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { isSeedable } from './homeSeeding.js';

describe('isSeedable: configuration seeds a chat home, history and credentials never do', () => {
  it.each(['.bashrc', '.profile', '.gitconfig', '.config/nvim/init.lua', '.config/app/settings.json', '.vimrc', '.tmux.conf'])(
    'seeds %s',
    (p) => {
      expect(isSeedable(p)).toBe(true);
    },
  );

  it.each([
    '.bash_history',
    '.zsh_history',
    '.python_history',
    '.ssh/id_rsa',
    '.ssh/config',
    '.ssh',
    '.aws/credentials',
    '.aws',
    '.netrc',
    '.config/gh/hosts.yml',
    'token.json',
    '.npmrc',
    '.docker/config.json',
    '.kube/config',
    '.git-credentials',
    'keys/server.pem',
    'id_ed25519',
    '.config/app/auth.json',
  ])('never seeds %s', (p) => {
    expect(isSeedable(p)).toBe(false);
  });

  it('treats Windows separators like POSIX ones', () => {
    expect(isSeedable('.aws\\credentials')).toBe(false);
    expect(isSeedable('.config\\gh\\hosts.yml')).toBe(false);
  });

  it('never seeds fish shell history', () => {
    expect(isSeedable('.local/share/fish/fish_history')).toBe(false);
  });
});

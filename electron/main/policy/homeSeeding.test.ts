import { describe, expect, it } from 'vitest';
import { isSeedable, isSeedableFolder } from './homeSeeding.js';

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
    '.claude/settings.json',
    '.codex/auth.json',
    '.cargo/credentials.toml',
    '.m2/settings.xml',
    '.gem/credentials',
    '.pulumi/credentials.json',
    '.config/containers/auth.json',
    '.config/git/credentials',
    '.config/git/config',
    '.config/configstore/firebase-tools.json',
    '.config/helm/repositories.yaml',
    '.vault-token',
    '.pgpass',
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

describe('isSeedable: an allow-list of configuration places', () => {
  it.each(['Documents/taxes.pdf', 'notes.txt', 'Desktop', 'bin/deploy.sh'])('never seeds %s, which is not a dot file', (p) => {
    expect(isSeedable(p)).toBe(false);
  });

  it.each(['.mozilla/firefox/x/prefs.js', '.local/share/app/state.json', '.cache/pip/x', '.vim/vimrc', '.oh-my-zsh/oh-my-zsh.sh'])(
    'never seeds %s, which is in a top-level dot folder other than .config',
    (p) => {
      expect(isSeedable(p)).toBe(false);
    },
  );

  it.each(['.config/nvim/lua/plugins/init.lua', '.config/htop/htoprc', '.config/fish/config.fish', '.inputrc'])('seeds %s', (p) => {
    expect(isSeedable(p)).toBe(true);
  });

  it.each(['../.bashrc', '/etc/passwd', '.config/../.ssh/id_rsa', '', '.config//x', './Documents/x'])('refuses the odd path %j', (p) => {
    expect(isSeedable(p)).toBe(false);
  });

  it.each([
    '.config/google-chrome/Default/Preferences',
    '.config/google-chrome-beta/Local State',
    '.config/chromium/Default/Bookmarks',
    '.config/BraveSoftware/Brave-Browser/Default/Preferences',
    '.config/microsoft-edge/Default/Preferences',
    '.config/vivaldi/Default/Preferences',
    '.config/opera/Preferences',
  ])('never seeds the browser profile file %s', (p) => {
    expect(isSeedable(p)).toBe(false);
  });

  it.each([
    '.config/rclone/rclone.conf',
    '.config/hub',
    '.config/op/config',
    '.config/Bitwarden/data.json',
    '.config/Bitwarden CLI/data.json',
    '.config/doctl/config.yaml',
    '.config/netlify/config.json',
    '.config/heroku/config.json',
    '.config/gcloud/configurations/config_default',
    '.config/gh/config.yml',
    '.config/Code/User/globalStorage/state.vscdb',
    '.config/keybase/config.json',
  ])('never seeds the credential-bearing configuration %s', (p) => {
    expect(isSeedable(p)).toBe(false);
  });

  it.each([
    '.config/app/Cookies',
    '.config/app/cookies.sqlite',
    '.config/app/state.db',
    '.config/app/places.sqlite-wal',
    '.config/app/key4.db',
    '.config/app/logins.json',
    '.config/app/login.keyring',
    '.config/app/vault.kdbx',
    '.config/app/server.pem',
    '.config/app/server.key',
    '.config/app/Local Storage/leveldb/000003.log',
    '.env',
    '.env.local',
    '.config/app/.env',
    '.config/app/.env.production',
    '.Xauthority',
  ])('never seeds the store or secret %s', (p) => {
    expect(isSeedable(p)).toBe(false);
  });

  it('keeps the Code settings but not its global storage', () => {
    expect(isSeedable('.config/Code/User/settings.json')).toBe(true);
    expect(isSeedable('.config/Code/User/globalStorage/x.json')).toBe(false);
  });
});

describe('isSeedableFolder: seeding looks only inside .config', () => {
  it.each(['.config', '.config/nvim', '.config/Code/User'])('looks inside %s', (p) => {
    expect(isSeedableFolder(p)).toBe(true);
  });

  it.each(['.mozilla', '.local', '.cache', 'Documents', '.ssh', '.config/google-chrome', '.config/rclone', '.config/Code/User/globalStorage', '..'])(
    'never looks inside %s',
    (p) => {
      expect(isSeedableFolder(p)).toBe(false);
    },
  );
});

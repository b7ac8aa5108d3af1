import { describe, expect, it } from 'vitest';
import { CREDENTIAL_DIRS, credentialFileReason } from './credentialPaths.js';

describe('credential folders', () => {
  it.each([
    '.claude', '.codex', '.cargo', '.m2', '.gem', '.pulumi', '.fly', '.oci', '.config/containers', '.config/git', '.config/configstore',
    '.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.config/gcloud', '.config/gh', '.config/hub', '.config/op', '.terraform.d',
  ])('names %s', (dir) => {
    expect(CREDENTIAL_DIRS).toContain(dir);
  });

  it('are relative, normalised and unique', () => {
    for (const dir of CREDENTIAL_DIRS) expect(dir).toMatch(/^[^/].*[^/]$/);
    expect(new Set(CREDENTIAL_DIRS).size).toBe(CREDENTIAL_DIRS.length);
  });
});

describe('credentialFileReason: a folder that directly holds credential files', () => {
  const none = () => '';
  it.each(['.netrc', '.git-credentials', '.pypirc', 'credentials.json', 'id_rsa', 'id_ed25519', '.pgpass', '.vault-token'])('refuses one holding %s', (name) => {
    expect(credentialFileReason(['README.md', name], none)).toMatch(new RegExp(`holds ${name.replace('.', '\\.')}`));
  });

  it('refuses an .npmrc with a token, not one naming a registry or reading the token from the environment', () => {
    const npmrc = (text: string) => credentialFileReason(['.npmrc'], () => text);
    expect(npmrc('//registry.npmjs.org/:_authToken=npm_abc123\n')).toMatch(/\.npmrc with a login token/);
    expect(npmrc('registry=https://r.example/\n_auth = dXNlcjpwYXNz\n')).toMatch(/login token/);
    expect(npmrc('registry=https://registry.npmjs.org/\nsave-exact=true\n')).toBeNull();
    expect(npmrc('//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n')).toBeNull();
    expect(npmrc('# //registry.npmjs.org/:_authToken=npm_abc\n')).toBeNull();
    // Unreadable: assumed to hold one.
    expect(credentialFileReason(['.npmrc'], () => null)).toMatch(/login token/);
  });

  it('refuses a .yarnrc.yml with a token, not one reading it from the environment', () => {
    expect(credentialFileReason(['.yarnrc.yml'], () => 'npmAuthToken: abc\n')).toMatch(/login token/);
    expect(credentialFileReason(['.yarnrc.yml'], () => 'npmAuthToken: "${NPM_TOKEN}"\n')).toBeNull();
  });

  it('accepts an ordinary project, .env and public keys included', () => {
    expect(credentialFileReason(['package.json', 'src', '.env', '.env.local', 'id_rsa.pub', '.gitignore'], none)).toBeNull();
  });
});

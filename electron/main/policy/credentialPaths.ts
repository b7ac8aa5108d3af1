/**
 * Where common tools keep credentials: the one list that both the attach deny-list
 * (sensitivePaths.ts) and the home-template deny-list (homeSeeding.ts) use. Pure data.
 */

/**
 * Folders, relative to the home folder, that hold credentials, keys, tokens, signed-in
 * sessions or browser profiles. A folder is refused when it is, is inside or contains one.
 */
export const CREDENTIAL_DIRS: readonly string[] = [
  // Keys and key stores.
  '.ssh', '.gnupg', '.password-store', '.local/share/keyrings', '.local/share/kwalletd', '.pki', 'Library/Keychains',
  '.1password', '.op', '.config/op', '.config/1Password', '.config/Bitwarden', '.config/Bitwarden CLI', '.config/sops',
  // Cloud and infrastructure tools.
  '.aws', '.azure', '.config/gcloud', '.oci', '.ibmcloud', '.bluemix', '.aliyun', '.config/doctl', '.config/hcloud', '.config/scw',
  '.config/linode-cli', '.config/openstack', '.kube', '.minikube', '.talos', '.docker', '.config/containers', '.terraform.d',
  '.pulumi', '.fly', '.vagrant.d', '.chef', '.config/helm', '.tsh', '.cloudflared', '.wrangler', '.config/.wrangler', '.vercel',
  '.netlify', '.config/netlify', '.config/heroku', '.supabase', '.railway', '.config/railway', '.doppler', '.config/ngrok',
  '.ngrok2', '.config/stripe', '.dbt', '.databricks', '.snowflake', '.config/rclone', '.colima', '.lima', '.orbstack', '.rd',
  // Code hosts and version control.
  '.config/gh', '.config/hub', '.config/glab-cli', '.config/git', '.subversion', '.circleci', '.travis',
  // Package managers and registries.
  '.cargo', '.m2', '.gradle', '.ivy2', '.sbt', '.gem', '.bundle', '.nuget', '.composer', '.config/composer', '.pip', '.config/pip',
  '.config/pypoetry', '.config/configstore', '.config/keybase',
  // AI tools and their sign-ins.
  '.claude', '.codex', '.gemini', '.continue', '.ollama', '.huggingface', '.cache/huggingface', '.kaggle', '.config/github-copilot',
  '.codeium', '.hermes', '.local/share/opencode', '.config/Code/User/globalStorage',
  // Browsers and signed-in desktop apps (cookies, saved passwords, sessions).
  '.mozilla', '.thunderbird', '.config/google-chrome', '.config/chromium', '.config/BraveSoftware', '.config/microsoft-edge',
  '.config/vivaldi', '.config/opera', '.config/Slack', '.config/discord', '.config/Signal',
  'Library/Application Support/Google/Chrome', 'Library/Application Support/Firefox', 'Library/Application Support/BraveSoftware',
  'Library/Cookies',
];

/** Files that hold credentials by their name alone (private keys, token stores), wherever they are. */
export const CREDENTIAL_FILES: readonly string[] = [
  '.netrc', '_netrc', '.git-credentials', '.pypirc', '.pgpass', '.my.cnf', '.boto', '.s3cfg', '.dockercfg', '.vault-token',
  '.terraformrc', '.databrickscfg', 'credentials.json', 'application_default_credentials.json', 'service-account.json',
  'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk',
];

/**
 * Files that hold credentials only when they carry one: a project's own .npmrc or .yarnrc.yml
 * usually names a registry, or reads its token from the environment (`${NPM_TOKEN}`).
 */
export const TOKEN_FILES: ReadonlyMap<string, RegExp> = new Map([
  ['.npmrc', /^[^#;\n]*(_authToken|_auth|_password)\s*=\s*(?!\$\{)\S/m],
  ['.yarnrc.yml', /^[^#\n]*(npmAuthToken|npmAuthIdent)\s*:\s*(?!["']?\$\{)\S/m],
]);

/** The most of a TOKEN_FILES file that is read to decide. */
export const TOKEN_FILE_MAX_BYTES = 64 * 1024;

/**
 * Why a folder that directly holds these entries may not be shared, or null. `read` gives a
 * TOKEN_FILES file's text (or null when it cannot be read, which counts as holding a token).
 * `.env` files are not refused: they are a project's own settings, found in most web projects,
 * and the user shares them with the project on purpose; a token the user put there for the
 * project is the project's, not one of the user's own sign-ins.
 */
export function credentialFileReason(names: readonly string[], read: (name: string) => string | null): string | null {
  for (const name of names) {
    if (CREDENTIAL_FILES.includes(name)) return `it directly holds ${name}, a file that stores credentials.`;
    const token = TOKEN_FILES.get(name);
    if (token) {
      const text = read(name);
      if (text === null || token.test(text)) return `it directly holds ${name} with a login token in it.`;
    }
  }
  return null;
}

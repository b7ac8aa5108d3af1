/**
 * Which files from a profile's home template may seed a chat's home. Pure. Configuration
 * only, as an allow-list: dot files at the template's top level and files under `.config/`.
 * Everything else (documents, browser profiles, `.local`, `.cache`, …) never is, and within
 * the allowed places history, credentials, browser and key stores never are either.
 */
import { CREDENTIAL_DIRS, CREDENTIAL_FILES, TOKEN_FILES } from './credentialPaths.js';

/** The single largest file a template may seed; larger files are skipped. */
export const SEED_MAX_FILE_BYTES = 1024 * 1024;
/** The most a template seeds into one home in one go; the rest is skipped. */
export const SEED_MAX_TOTAL_BYTES = 16 * 1024 * 1024;

/** The only folder of the template whose contents are seeded (at any depth). */
const CONFIG_DIR = '.config';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const DENIED_NAMES = [
  // Credentials and keys: the folders and files of credentialPaths.ts, the same list a mount is refused by.
  ...CREDENTIAL_DIRS.map((dir) => new RegExp(`(^|/)${escape(dir)}(/|$)`)),
  ...[...CREDENTIAL_FILES, ...TOKEN_FILES.keys()].map((name) => new RegExp(`(^|/)${escape(name)}$`)),
  /(^|\/)\.fetchmailrc$/, /(^|\/)\.msmtprc$/,
  /(^|\/)\.env(rc)?$/, /(^|\/)\.env\.[^/]*$/,
  /(^|\/)id_[a-z0-9]+(\.pub)?$/i, /\.(pem|key|p12|pfx|kdbx|kdb|gpg|asc|keyring|keychain|keystore|jks|kwl)$/i,
  /(auth|token|secret|credential|password|apikey|api_key)[^/]*$/i,
  /(^|\/)logins\.json$/i, /(^|\/)key\d*\.db$/i,
  // Credential-bearing tool configurations beyond the shared list's exact names.
  /^\.config\/(Bitwarden[^/]*|1Password[^/]*)(\/|$)/,
  /^\.config\/(Code|Code - OSS|Code - Insiders|VSCodium|Cursor)\/User\/globalStorage(\/|$)/,
  // Browser profiles and the session stores of desktop apps.
  /^\.config\/(google-chrome[^/]*|chromium[^/]*|BraveSoftware|microsoft-edge[^/]*|vivaldi[^/]*|opera[^/]*)(\/|$)/,
  /(^|\/)(Local Storage|Session Storage|IndexedDB)(\/|$)/,
  /(^|\/)[^/]*cookie[^/]*$/i,
  /\.(db|sqlite|sqlite3)(-(wal|shm|journal))?$/i, /\.sqlite[^/]*$/i,
  // History.
  /(^|\/)[^/]*_history$/i, /(^|\/)\.?history$/i, /(^|\/)\.local\/share\/fish(\/|$)/, /(^|\/)\.lesshst$/, /(^|\/)\.viminfo$/,
  // Caches.
  /(^|\/)\.cache(\/|$)/,
];

function normalise(relativePath: string): string {
  return relativePath.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

function denied(p: string): boolean {
  return DENIED_NAMES.some((re) => re.test(p));
}

function escapes(p: string): boolean {
  return p === '' || p.startsWith('/') || p.split('/').some((part) => part === '' || part === '.' || part === '..');
}

/**
 * Whether the template file at this relative path may be copied into a chat's home: a dot file
 * at the template's top level, or a file anywhere under `.config/`, and never one the deny-list
 * refuses (history, credentials, browser profiles, key and cookie stores, databases).
 */
export function isSeedable(relativePath: string): boolean {
  const p = normalise(relativePath);
  if (escapes(p)) return false;
  const allowed = p.includes('/') ? p.startsWith(`${CONFIG_DIR}/`) : p.startsWith('.');
  return allowed && !denied(p);
}

/** Whether seeding may look inside the template folder at this relative path. */
export function isSeedableFolder(relativePath: string): boolean {
  const p = normalise(relativePath);
  if (escapes(p)) return false;
  return (p === CONFIG_DIR || p.startsWith(`${CONFIG_DIR}/`)) && !denied(p);
}

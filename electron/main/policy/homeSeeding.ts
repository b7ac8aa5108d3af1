/**
 * Which files from a profile's home template may seed a chat's home. Pure. Configuration
 * only: never shell or agent history, never credentials.
 */
const DENIED_NAMES = [
  /(^|\/)\.ssh(\/|$)/, /(^|\/)\.gnupg(\/|$)/, /(^|\/)\.aws(\/|$)/, /(^|\/)\.azure(\/|$)/, /(^|\/)\.kube(\/|$)/,
  /(^|\/)\.docker(\/|$)/, /(^|\/)\.config\/gcloud(\/|$)/, /(^|\/)\.config\/gh(\/|$)/, /(^|\/)\.password-store(\/|$)/,
  /(^|\/)\.netrc$/, /(^|\/)\.npmrc$/, /(^|\/)\.pypirc$/, /(^|\/)\.git-credentials$/, /(^|\/)\.pgpass$/,
  /(^|\/)[^/]*_history$/i, /(^|\/)\.?history$/i, /(^|\/)\.local\/share\/fish(\/|$)/, /(^|\/)\.lesshst$/, /(^|\/)\.viminfo$/,
  /(^|\/)\.claude(\/|$)/, /(^|\/)\.codex(\/|$)/, /(^|\/)\.hermes(\/|$)/, /(^|\/)\.cache(\/|$)/,
  /(^|\/)id_[a-z0-9]+(\.pub)?$/i, /\.(pem|key|p12|pfx|kdbx|gpg|asc)$/i,
  /(auth|token|secret|credential|password|apikey|api_key)[^/]*$/i,
];

export function isSeedable(relativePath: string): boolean {
  const p = relativePath.replace(/\\/g, '/');
  return !DENIED_NAMES.some((re) => re.test(p));
}

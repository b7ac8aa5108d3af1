/**
 * Prepared images of a profile's setup command (sandbox/setupImage.ts): the command runs once, as
 * root, in a build step FROM the profile's image (never in a chat's sandbox: the sandbox is never
 * root), with the profile's egress and nothing of the user's (the build context holds only the
 * Dockerfile). The result is a local image labelled `berth.app` and keyed by `berth.prepared.key`
 * = hash(image id, command), so the same pair is never built twice and a changed command or a
 * new image builds a new one. Pure.
 */
import { createHash } from 'node:crypto';

/** The label that keys a prepared image (shared with devcontainer environments' prepared images). */
export const PREPARED_KEY_LABEL = 'berth.prepared.key';

export function setupKey(imageId: string, command: string): string {
  return createHash('sha256').update(JSON.stringify(['setup-command', imageId, command])).digest('hex');
}

export function preparedTag(key: string): string {
  return `berth-prepared:${key.slice(0, 24)}`;
}

/** The build step: FROM the image (by id, so the key is what is built on), the command as root. */
export function setupRecipe(imageId: string, command: string, key: string): string {
  return [
    `FROM ${imageId}`,
    'USER root',
    `RUN ${JSON.stringify(['/bin/sh', '-c', command])}`,
    `LABEL berth.app="berth" ${PREPARED_KEY_LABEL}="${key}"`,
    '',
  ].join('\n');
}

/**
 * The network the setup step gets: the profile's egress. 'none' has none; 'open' joins the
 * profile's own bridge (the one its sandboxes use); 'allowlist' a sealed network of its own with
 * the profile's proxy on it, the proxy's variables as the build's arguments (the proxy serves
 * only sealed networks, as a project environment's build gets it: README, Setup command).
 */
export function setupNetwork(egress: 'none' | 'allowlist' | 'open'): 'none' | 'bridge' | 'sealed' {
  return egress === 'open' ? 'bridge' : egress === 'allowlist' ? 'sealed' : 'none';
}

/** One line for the status bar and the header, from the command's first line. */
export function setupLabel(profile: string, command: string): string {
  const first = command.split('\n')[0]?.trim() ?? '';
  return `Setup command of "${profile}" (${first.length > 60 ? `${first.slice(0, 57)}…` : first})`;
}

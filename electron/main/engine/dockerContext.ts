/**
 * Reads the Docker CLI's current context, so Berth talks to the engine the user's own
 * `docker` command talks to. Any problem reading it means "no context": the default applies.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function currentContextHost(env: NodeJS.ProcessEnv, homeDir: string): string | null {
  try {
    const configDir = env.DOCKER_CONFIG || path.join(homeDir, '.docker');
    let name = env.DOCKER_CONTEXT?.trim();
    if (!name) {
      const config = JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8')) as { currentContext?: string };
      name = config.currentContext;
    }
    if (!name || name === 'default') return null;
    // The CLI stores each context under the SHA-256 of its name.
    const digest = createHash('sha256').update(name).digest('hex');
    const meta = JSON.parse(fs.readFileSync(path.join(configDir, 'contexts', 'meta', digest, 'meta.json'), 'utf8')) as {
      Endpoints?: { docker?: { Host?: string } };
    };
    return meta.Endpoints?.docker?.Host ?? null;
  } catch {
    return null;
  }
}

/** A context by name, as `docker --context NAME` reads it: its host and its own TLS files. */
export function contextByName(
  name: string,
  env: NodeJS.ProcessEnv,
  homeDir: string,
): { host: string; tlsFiles: { ca: string; cert: string; key: string } | null } | null {
  try {
    const configDir = env.DOCKER_CONFIG || path.join(homeDir, '.docker');
    const digest = createHash('sha256').update(name).digest('hex');
    const meta = JSON.parse(fs.readFileSync(path.join(configDir, 'contexts', 'meta', digest, 'meta.json'), 'utf8')) as {
      Endpoints?: { docker?: { Host?: string } };
    };
    const host = meta.Endpoints?.docker?.Host;
    if (!host) return null;
    // `docker context create --docker "host=…,ca=…,cert=…,key=…"` copies the files here.
    const tlsDir = path.join(configDir, 'contexts', 'tls', digest, 'docker');
    const files = { ca: path.join(tlsDir, 'ca.pem'), cert: path.join(tlsDir, 'cert.pem'), key: path.join(tlsDir, 'key.pem') };
    return { host, tlsFiles: fs.existsSync(files.cert) ? files : null };
  } catch {
    return null;
  }
}

/**
 * Every context in the Docker config, as `docker context ls` lists them: the CLI's own
 * "default" (its default engine) first, then each stored context by name. Unreadable entries
 * are left out; a missing config means only "default".
 */
export function listContexts(env: NodeJS.ProcessEnv, homeDir: string, defaultHost: string): { name: string; host: string; current: boolean }[] {
  const configDir = env.DOCKER_CONFIG || path.join(homeDir, '.docker');
  let current = env.DOCKER_CONTEXT?.trim() || '';
  if (!current) {
    try {
      current = (JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8')) as { currentContext?: string }).currentContext ?? '';
    } catch {
      current = '';
    }
  }
  const stored: { name: string; host: string }[] = [];
  const metaDir = path.join(configDir, 'contexts', 'meta');
  let digests: string[];
  try {
    digests = fs.readdirSync(metaDir);
  } catch {
    digests = [];
  }
  for (const digest of digests) {
    try {
      const meta = JSON.parse(fs.readFileSync(path.join(metaDir, digest, 'meta.json'), 'utf8')) as { Name?: string; Endpoints?: { docker?: { Host?: string } } };
      const host = meta.Endpoints?.docker?.Host;
      if (typeof meta.Name === 'string' && meta.Name !== 'default' && host) stored.push({ name: meta.Name, host });
    } catch {
      // Not a context the CLI could read either.
    }
  }
  stored.sort((a, b) => a.name.localeCompare(b.name));
  const isCurrent = (name: string) => (current || 'default') === name;
  return [{ name: 'default', host: defaultHost, current: isCurrent('default') }, ...stored.map((c) => ({ ...c, current: isCurrent(c.name) }))];
}

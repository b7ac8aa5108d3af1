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

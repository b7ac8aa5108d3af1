/** The plain Docker CLI, for tests to look at what Berth did from the outside. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function docker(...args: string[]): Promise<string> {
  return dockerAt(undefined, ...args);
}

/** The docker CLI against `host` (a DOCKER_HOST value), or this process's engine when undefined. */
export async function dockerAt(host: string | undefined, ...args: string[]): Promise<string> {
  const env = host === undefined ? process.env : { ...process.env, DOCKER_HOST: host };
  const { stdout } = await run('docker', args, { maxBuffer: 64 * 1024 * 1024, env });
  return stdout.trim();
}

export async function dockerOk(...args: string[]): Promise<boolean> {
  return dockerOkAt(undefined, ...args);
}

export async function dockerOkAt(host: string | undefined, ...args: string[]): Promise<boolean> {
  try {
    await dockerAt(host, ...args);
    return true;
  } catch {
    return false;
  }
}

/** The ids of the containers with this label: all of them, or with `running` only the running ones. */
export async function containersWithLabel(label: string, { running = false, host }: { running?: boolean; host?: string } = {}): Promise<string[]> {
  const out = await dockerAt(host, 'ps', running ? '-q' : '-aq', '--no-trunc', '--filter', `label=${label}`);
  return out ? out.split('\n') : [];
}

/**
 * Force-removes every container of one Berth instance (label berth.instance), with `volumes`
 * their anonymous volumes too; returns the ids it removed. `host`: on that engine.
 */
export async function removeInstanceContainers(instanceId: string, { volumes = false, host }: { volumes?: boolean; host?: string } = {}): Promise<string[]> {
  const left = await containersWithLabel(`berth.instance=${instanceId}`, { host });
  if (left.length) await dockerAt(host, 'rm', '-f', ...(volumes ? ['-v'] : []), ...left);
  // The instance's own networks too (allowlist sandboxes' sealed networks, Podman chats' own), once their containers are gone.
  const networks = (await dockerAt(host, 'network', 'ls', '-q', '--filter', `label=berth.instance=${instanceId}`)).split('\n').filter(Boolean);
  for (const n of networks) await dockerOkAt(host, 'network', 'rm', n);
  return left;
}

/** The environment images (built bases, prepared images) one Berth instance made. */
export async function removeInstanceImages(instanceId: string, host?: string): Promise<void> {
  const ids = (await dockerAt(host, 'image', 'ls', '-q', '--filter', `label=berth.instance=${instanceId}`, '--filter', 'label=berth.env.key')).split('\n').filter(Boolean);
  if (ids.length) await dockerOkAt(host, 'image', 'rm', '-f', ...new Set(ids));
}

/** Volumes these instances' chats left on this machine's engine (a remote engine's homes and folder copies), should a test fail before deleting its chat. */
export async function removeInstanceVolumes(instanceIds: readonly string[]): Promise<void> {
  for (const instance of instanceIds) {
    const names = (await docker('volume', 'ls', '-q', '--filter', `label=berth.instance=${instance}`)).split('\n').filter(Boolean);
    if (names.length) await docker('volume', 'rm', '-f', ...names);
  }
}

export async function inspect<T = Record<string, unknown>>(id: string): Promise<T> {
  return (JSON.parse(await docker('inspect', id)) as T[])[0] as T;
}

/**
 * The socket of the engine this run tests (DOCKER_HOST, as BERTH_TEST_ENGINE or the podman
 * project sets it; else Docker's default), for a test that builds an engine of its own.
 */
export function engineSocket(): string {
  const host = process.env.DOCKER_HOST;
  return host?.startsWith('unix://') ? host.slice('unix://'.length) : '/var/run/docker.sock';
}

export const BUSYBOX = 'berth-test:busybox';
export const BOOKWORM = 'berth-test:bookworm';

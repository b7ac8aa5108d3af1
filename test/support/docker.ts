/** The plain Docker CLI, for tests to look at what Berth did from the outside. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

export async function dockerOk(...args: string[]): Promise<boolean> {
  try {
    await run('docker', args);
    return true;
  } catch {
    return false;
  }
}

export async function containersWithLabel(label: string): Promise<string[]> {
  const out = await docker('ps', '-aq', '--no-trunc', '--filter', `label=${label}`);
  return out ? out.split('\n') : [];
}

export async function inspect<T = Record<string, unknown>>(id: string): Promise<T> {
  return (JSON.parse(await docker('inspect', id)) as T[])[0] as T;
}

export const BUSYBOX = 'berth-test:busybox';
export const BOOKWORM = 'berth-test:bookworm';

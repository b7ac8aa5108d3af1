/** What the bench scripts share as command-line programs: options, the command line, the image check, the exit. */
import path from 'node:path';
import { docker } from '../test/support/docker.js';

/** `raw` as a positive integer for `--name`, or `fallback` when it is not given. */
export function positiveInt(name: string, raw: string | undefined, fallback: number, usage: string): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} needs a positive integer, got "${raw}".\n${usage}`);
  return n;
}

export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line that ran this script, to print with its results: `runner` turns the
 * script's path into the direct command; under `npm run <npmScript>` the npm form comes first.
 */
export function commandLine(npmScript: string, defaultScript: string, runner: (script: string) => string): string {
  const args = process.argv.slice(2).map(quoteArg).join(' ');
  const script = path.relative(process.cwd(), process.argv[1] ?? defaultScript) || defaultScript;
  const direct = runner(script) + (args ? ` ${args}` : '');
  return process.env.npm_lifecycle_event === npmScript ? `npm run ${npmScript}${args ? ` -- ${args}` : ''}  (${direct})` : direct;
}

/** Throws unless `image` is on the engine: the bench never pulls. */
export async function requireLocalImage(image: string): Promise<void> {
  try {
    await docker('image', 'inspect', '--format', '{{.Id}}', image);
  } catch {
    throw new Error(`The image ${image} is not present locally (the bench never pulls). Build it (scripts/build-test-images.sh) or pass --image.`);
  }
}

/**
 * For the end of `main`: everything is closed by then; only if some handle still holds the
 * loop open 3 s later, says so (`message`, read then) and exits anyway.
 */
export function exitIfStillAlive(message: () => string): void {
  setTimeout(() => {
    console.error(message());
    process.exit();
  }, 3000).unref();
}

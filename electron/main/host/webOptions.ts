/** The `npm run web` command line: pure parsing and defaults, no I/O. */
import { createHash } from 'node:crypto';
import path from 'node:path';

export const DEFAULT_PORT = 5178;
/** How many ports other data folders' defaults spread over, after DEFAULT_PORT. */
const OTHER_PORTS = 800;

/**
 * The port a data folder listens on unless --port says otherwise: the default folder's is
 * DEFAULT_PORT, any other folder's a fixed one of its own (from its path). Fixed, so a restart
 * keeps the address and the tabs open on it find Berth again; per folder, so two Berths with
 * different data run side by side without a clash.
 */
export function defaultPortFor(dataDir: string, defaultDir: string): number {
  if (path.resolve(dataDir) === path.resolve(defaultDir)) return DEFAULT_PORT;
  const n = createHash('sha256').update(path.resolve(dataDir)).digest().readUInt32BE(0);
  return DEFAULT_PORT + 1 + (n % OTHER_PORTS);
}

export interface WebOptions {
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  /** --known-hosts, repeatable: the known_hosts files ssh:// engines are checked against instead of ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts. */
  knownHostsFiles?: string[];
}

export const USAGE = `Usage: npm run web -- [--port N] [--data-dir DIR] [--known-hosts FILE]...

  --port N        the port on 127.0.0.1 to listen on (default ${DEFAULT_PORT} with the default data
                  folder, another fixed one per other data folder, so a restart keeps the address;
                  0 picks a free one)
  --data-dir DIR  where Berth keeps its data (default $XDG_DATA_HOME/berth or ~/.local/share/berth)
  --known-hosts FILE
                  a known_hosts file ssh:// engines' host keys must be listed in (repeatable;
                  default ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts, as ssh)
`;

/** `$XDG_DATA_HOME/berth` when that is an absolute path, else `~/.local/share/berth`. */
export function defaultDataDir(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_DATA_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'berth');
  return path.join(home, '.local', 'share', 'berth');
}

export type ParsedArgs = { kind: 'run'; options: WebOptions } | { kind: 'help' } | { kind: 'error'; message: string };

export function parseWebArgs(argv: readonly string[], env: NodeJS.ProcessEnv, home: string, cwd: string): ParsedArgs {
  let port: number | null = null;
  let dataDir: string | null = null;
  const knownHostsFiles: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (name !== '--port' && name !== '--data-dir' && name !== '--known-hosts') return { kind: 'error', message: `Unknown option "${arg}".` };
    let value: string | undefined;
    if (eq > 0 && arg.startsWith('--')) value = arg.slice(eq + 1);
    else value = argv[++i];
    if (value === undefined || value === '') return { kind: 'error', message: `${name} needs a value.` };
    if (name === '--port') {
      if (!/^\d+$/.test(value) || Number(value) > 65535) {
        return { kind: 'error', message: `--port takes a number from 0 to 65535, not "${value}".` };
      }
      port = Number(value);
    } else if (name === '--known-hosts') {
      knownHostsFiles.push(path.resolve(cwd, value));
    } else {
      dataDir = path.resolve(cwd, value);
    }
  }
  const fallback = defaultDataDir(env, home);
  const dir = dataDir ?? fallback;
  return { kind: 'run', options: { port: port ?? defaultPortFor(dir, fallback), dataDir: dir, ...(knownHostsFiles.length ? { knownHostsFiles } : {}) } };
}

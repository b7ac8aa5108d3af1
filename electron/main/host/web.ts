/**
 * `npm run web -- [--port N] [--data-dir DIR]`: runs the core under plain Node with the browser
 * host in front of it. Prints exactly one line to stdout, the URL to open (with this run's
 * token); everything else goes to stderr.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore, type BerthCore } from '../core.js';
import { createHostServer, newToken, type HostServer } from './server.js';
import { USAGE, parseWebArgs } from './webOptions.js';

/** The checkout: three folders up from this file, and one more when it runs compiled from dist/. */
const REPO_ROOT = ((up) => (fs.existsSync(path.join(up, 'package.json')) ? up : path.dirname(up)))(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..'),
);
const STATIC_DIR = path.join(REPO_ROOT, 'dist', 'renderer');

/** Signals closer together than this are one key press delivered twice, not a second press. */
const SAME_PRESS_MS = 2_000;

const note = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const parsed = parseWebArgs(process.argv.slice(2), process.env, os.homedir(), process.cwd());
  if (parsed.kind === 'help') {
    process.stderr.write(USAGE);
    process.exit(0);
  }
  if (parsed.kind === 'error') {
    note(parsed.message);
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const { port, dataDir, knownHostsFiles } = parsed.options;

  let core: BerthCore;
  try {
    // The app prepares its images when it starts (sandbox/imagePreparations.ts); BERTH_PREPARE_IMAGES=0 leaves them to the first chat.
    core = createCore({ dataDir, env: { ...process.env, BERTH_PREPARE_IMAGES: process.env.BERTH_PREPARE_IMAGES ?? '1' }, ...(knownHostsFiles ? { knownHostsFiles } : {}) });
  } catch (error) {
    note(`Berth could not open its data in ${dataDir}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }

  let host: HostServer;
  try {
    host = await createHostServer({ core, port, staticDir: STATIC_DIR, token: newToken(), log: note, api: core });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') note(`Port ${port} on 127.0.0.1 is already in use. Start with --port 0 to pick a free one, or --port N.`);
    else note(`Berth could not listen on 127.0.0.1:${port}: ${error instanceof Error ? error.message : String(error)}`);
    await core.dispose().catch(() => undefined);
    process.exit(1);
  }

  let stoppingSince: number | null = null;
  const stop = (signal: NodeJS.Signals) => {
    if (stoppingSince !== null) {
      // One Ctrl+C arrives twice: from the terminal to the whole process group, and again from
      // npm, which forwards the signals it gets to its script. A repeat this soon is that press.
      if (Date.now() - stoppingSince < SAME_PRESS_MS) return;
      note(`${signal} again: quitting without waiting.`);
      process.exit(1);
    }
    stoppingSince = Date.now();
    note('Berth is stopping…');
    void (async () => {
      await host.close().catch(() => undefined);
      await core.dispose().catch((error: unknown) => note(`Stopping the core failed: ${error instanceof Error ? error.message : String(error)}`));
      process.exit(0);
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  process.stdout.write(`Berth is running at ${host.url}\n`);
  note(`Data: ${dataDir}`);
  if (!fs.existsSync(path.join(STATIC_DIR, 'index.html'))) {
    note('The web UI is not built yet: run `npm run build:renderer` (the page answers 503 until then).');
  }
  note('Open the URL above in your browser. It carries this run\'s access token: anyone with it can run commands');
  note('in your sandboxes, so keep it to yourself. Press Ctrl+C to stop.');
}

void main().catch((error: unknown) => {
  note(`Berth failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});

/**
 * The terminal bench's peer: wetty (an xterm.js web terminal, from npm, a devDependency), run by
 * the bench on 127.0.0.1 with `docker exec -it <the chat's container> sh` as its command, opened
 * in the same Chromium at the same terminal size and font as Berth's terminal.
 *
 * Renderer: Berth draws with xterm's DOM renderer; wetty loads xterm's WebGL addon, which in
 * this headless Chromium without a GPU runs in software and is several times slower than the
 * DOM path. Comparing against that would flatter Berth, so by default the wetty page has no
 * WebGL (the addon fails to load and wetty falls back to the same DOM renderer, as wetty itself
 * does when WebGL is missing); `webgl: true` measures wetty as shipped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';

const require = createRequire(import.meta.url);

/** What the evaluated functions see of wetty's page. */
interface WettyGlobals {
  wetty_term?: {
    rows: number;
    cols: number;
    resize(cols: number, rows: number): void;
    focus(): void;
    buffer: { active: { viewportY: number; length: number; getLine(y: number): { translateToString(trim: boolean): string } | undefined } };
  };
}

export interface WettyPeer {
  page: Page;
  version: string;
  renderer: string;
  /** The rows in view, joined by newlines. */
  screenText(): Promise<string>;
  /** Characters (or bytes) wetty's socket has received so far. */
  received(): Promise<number>;
  /** The last `lines` lines of the buffer. */
  tailText(lines: number): Promise<string>;
  /** Focuses the terminal and types a line (Enter unless told not to). */
  type(line: string, enter?: boolean): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url: string, child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wetty exited ${child.exitCode} before it served ${url}:\n${stderr().slice(-2000)}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`wetty did not serve ${url} within ${timeoutMs / 1000} s:\n${stderr().slice(-2000)}`);
}

/** Reads the rows in view (or the buffer's last `tail` lines) of wetty's xterm. */
function wettyText(tail: number | null): string {
  const t = (globalThis as unknown as WettyGlobals).wetty_term;
  if (!t) return '';
  const b = t.buffer.active;
  const from = tail === null ? b.viewportY : Math.max(0, b.length - tail);
  const to = tail === null ? b.viewportY + t.rows : b.length;
  const lines: string[] = [];
  for (let y = from; y < to; y++) lines.push(b.getLine(y)?.translateToString(true) ?? '');
  return lines.join('\n');
}

export async function startWetty(opts: {
  browser: Browser;
  container: string;
  size: { rows: number; cols: number };
  font: { family: string; size: number };
  webgl: boolean;
  /** The same init scripts the Berth page gets that the probe needs (e.g. tsx's `__name`). */
  initScripts: Array<{ content: string }>;
}): Promise<WettyPeer> {
  // The package exports only its server module (build/server.js); its CLI and package.json sit beside it.
  const root = path.dirname(path.dirname(require.resolve('wetty')));
  const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const main = path.join(root, 'build', 'main.js');
  const port = await freePort();
  // As root with a local host, wetty runs its command in a pty itself (`/usr/bin/env -S <command>`), no ssh.
  const child = spawn(process.execPath, [main, '--host', '127.0.0.1', '--port', String(port), '--base', '/wetty/', '--command', `docker exec -it ${opts.container} sh`, '--log-level', 'warn'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const stop = async () => {
    await page?.close().catch(() => undefined);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  };
  let page: Page | undefined;
  try {
    const url = `http://127.0.0.1:${port}/wetty/`;
    await waitForHttp(url, child, () => stderr, 30_000);
    page = await opts.browser.newPage({ viewport: { width: 1280, height: 800 } });
    for (const s of opts.initScripts) await page.addInitScript(s);
    const options = { xterm: { fontSize: opts.font.size, fontFamily: opts.font.family }, wettyVoid: 0, wettyFitTerminal: false };
    await page.addInitScript(
      ({ options, webgl }) => {
        const g = globalThis as unknown as {
          localStorage: { options: string };
          HTMLCanvasElement: { prototype: { getContext(this: unknown, kind: string, ...rest: unknown[]): unknown } };
        };
        g.localStorage.options = options;
        if (!webgl) {
          const original = g.HTMLCanvasElement.prototype.getContext;
          g.HTMLCanvasElement.prototype.getContext = function (this: unknown, kind: string, ...rest: unknown[]) {
            return /webgl/.test(kind) ? null : original.call(this, kind, ...rest);
          };
        }
      },
      { options: JSON.stringify(options), webgl: opts.webgl },
    );
    // Counts what wetty's socket receives, so the bench can tell that wetty sat idle while Berth ran.
    await page.addInitScript(() => {
      type Ws = new (...args: unknown[]) => { addEventListener(t: string, fn: (ev: { data: unknown }) => void): void };
      const g = globalThis as unknown as { WebSocket: Ws; __wettyRx: number };
      g.__wettyRx = 0;
      const Original = g.WebSocket;
      g.WebSocket = class extends Original {
        constructor(...args: unknown[]) {
          super(...args);
          this.addEventListener('message', (ev) => {
            const d = ev.data as { length?: number; byteLength?: number; size?: number };
            g.__wettyRx += typeof ev.data === 'string' ? ev.data.length : (d.byteLength ?? d.size ?? 0);
          });
        }
      };
    });
    await page.goto(url);
    await page.waitForFunction(() => (globalThis as unknown as WettyGlobals).wetty_term !== undefined, undefined, { timeout: 30_000 });
    const p = page;
    const peer: WettyPeer = {
      page: p,
      version,
      renderer: opts.webgl ? 'WebGL addon (software, no GPU)' : 'DOM renderer (WebGL off, as Berth)',
      screenText: () => p.evaluate(wettyText, null),
      received: () => p.evaluate(() => (globalThis as unknown as { __wettyRx: number }).__wettyRx),
      tailText: (lines) => p.evaluate(wettyText, lines),
      type: async (line, enter = true) => {
        await p.evaluate(() => (globalThis as unknown as WettyGlobals).wetty_term?.focus());
        await p.keyboard.type(line);
        if (enter) await p.keyboard.press('Enter');
      },
      stop,
    };
    await waitFor(peer, (s) => /[$#]\s*$/.test(s.trim()), "wetty's first prompt");
    await p.evaluate(({ rows, cols }) => (globalThis as unknown as WettyGlobals).wetty_term?.resize(cols, rows), opts.size);
    await peer.type('echo SIZE $(stty size)-END');
    const shown = await waitFor(peer, (s) => /SIZE \d+ \d+-END/.test(s), "wetty's stty size");
    const got = /SIZE (\d+ \d+)-END/.exec(shown)?.[1];
    if (got !== `${opts.size.rows} ${opts.size.cols}`) throw new Error(`wetty's terminal is ${got}, Berth's ${opts.size.rows} ${opts.size.cols}: the sizes must match.`);
    return peer;
  } catch (error) {
    await stop();
    throw error;
  }
}

export async function waitFor(peer: WettyPeer, pred: (screen: string) => boolean, what: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let s = '';
  while (Date.now() < deadline) {
    s = await peer.screenText();
    if (pred(s)) return s;
    await peer.page.waitForTimeout(50);
  }
  throw new Error(`Timed out waiting for ${what} in wetty. It shows:\n${s}`);
}

/**
 * The desktop app end to end: the real Electron binary running the built app (main, preload,
 * renderer), driven by playwright-core's `_electron`. It needs Electron's binary, which is not
 * installed where `ELECTRON_SKIP_BINARY_DOWNLOAD=1` (this workplace's CI): there it is skipped
 * and says why. Build first: `npm run build:renderer && npm run build:electron`.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What the tests use of the page's global scope (this project type-checks without the DOM lib). */
interface PageGlobal {
  berth: {
    call(method: string, params?: unknown): Promise<unknown>;
    on(event: string, listener: (payload: unknown) => void): () => void;
  };
  open(url: string): unknown;
  location: { href: string };
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILT = ['dist/electron/main/index.js', 'dist/electron/preload/index.cjs', 'dist/renderer/index.html'];

/** The Electron executable, or why the desktop test cannot run here. */
function findElectron(): { binary: string; reason: null } | { binary: null; reason: string } {
  const missing = {
    binary: null,
    reason: "Electron's binary is not installed here (ELECTRON_SKIP_BINARY_DOWNLOAD); the desktop end-to-end test runs where it is.",
  };
  let binary: unknown;
  try {
    // The electron package's default export is the path of its binary (it throws without one).
    binary = createRequire(import.meta.url)('electron');
  } catch {
    return missing;
  }
  if (typeof binary !== 'string' || !fs.existsSync(binary)) return missing;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { binary: null, reason: 'There is no display for Electron here: run the desktop end-to-end test under xvfb-run.' };
  }
  return { binary, reason: null };
}

const electron = findElectron();
if (electron.reason) console.warn(`Skipping e2e/electron.e2e.test.ts: ${electron.reason}`);

describe.skipIf(electron.binary === null)('the desktop app', () => {
  let app: ElectronApplication;
  let page: Page;
  let dataDir: string;

  beforeAll(async () => {
    const missing = BUILT.filter((file) => !fs.existsSync(path.join(REPO, file)));
    if (missing.length) {
      throw new Error(`The app is not built (${missing.join(', ')}): run \`npm run build:renderer && npm run build:electron\` first.`);
    }
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-electron-e2e-'));
    // Chromium refuses to start as root with its OS sandbox; only then is it turned off (tests only).
    const args = process.getuid?.() === 0 ? ['--no-sandbox', REPO] : [REPO];
    app = await _electron.launch({
      executablePath: electron.binary as string,
      args,
      cwd: REPO,
      // No image preparation at start (a full default image, minutes of debootstrap): not what this file tests.
      env: { ...process.env, BERTH_PREPARE_IMAGES: '0', BERTH_DATA_DIR: dataDir, BERTH_DEV_SERVER_URL: '' } as Record<string, string>,
      timeout: 60_000,
    });
    page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('loads the renderer from berth://app, with its data where it was told', async () => {
    expect(page.url()).toBe('berth://app/index.html');
    expect(await app.evaluate(({ app: electronApp }) => electronApp.getPath('userData'))).toBe(path.resolve(dataDir));
  });

  it('gives the page window.berth with call, on, pickFolder and confirmFolder, and nothing of Node or Electron', async () => {
    const seen = await page.evaluate(() => {
      const w = globalThis as unknown as Record<string, unknown>;
      const berth = w.berth as Record<string, unknown>;
      return {
        keys: Object.keys(berth).sort(),
        types: Object.values(berth).map((v) => typeof v),
        require: typeof w.require,
        process: typeof w.process,
        ipcRenderer: typeof w.ipcRenderer,
        electron: typeof w.electron,
      };
    });
    expect(seen).toEqual({
      keys: ['call', 'confirmFolder', 'on', 'pickFolder'],
      types: ['function', 'function', 'function', 'function'],
      require: 'undefined',
      process: 'undefined',
      ipcRenderer: 'undefined',
      electron: 'undefined',
    });
  });

  it('reaches the core: creates a chat and hears chats.changed', async () => {
    const result = await page.evaluate(async () => {
      const { berth } = globalThis as unknown as PageGlobal;
      const heard: unknown[] = [];
      const off = berth.on('chats.changed', (payload) => heard.push(payload));
      const chat = (await berth.call('chats.create', { title: 'From Electron' })) as { id: string; title: string };
      await new Promise((resolve) => setTimeout(resolve, 200));
      off();
      return { title: chat.title, heard: heard.some((p) => (p as { chatId: string }).chatId === chat.id) };
    });
    expect(result).toEqual({ title: 'From Electron', heard: true });
  });

  it('never reaches workspace.attach from the page', async () => {
    const message = await page.evaluate(async () => {
      const { berth } = globalThis as unknown as PageGlobal;
      const { chats } = (await berth.call('chats.list', {})) as { chats: Array<{ id: string }> };
      return berth.call('workspace.attach', { chatId: chats[0]?.id, path: '/tmp' }).then(
        () => 'attached',
        (error: Error) => error.message,
      );
    });
    expect(message).toContain('workspace.attach is not available in the desktop app.');
  });

  it('enforces the CSP (no eval) and keeps the window where it is', async () => {
    const evalResult = await page.evaluate(() => {
      try {
        return String(eval('1 + 1'));
      } catch {
        return 'blocked';
      }
    });
    expect(evalResult).toBe('blocked');
    const opened = await page.evaluate(() => (globalThis as unknown as PageGlobal).open('file:///etc/passwd') === null);
    expect(opened).toBe(true);
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobal).location.href = 'https://example.invalid/';
    });
    await page.waitForTimeout(500);
    expect(page.url()).toBe('berth://app/index.html');
    expect(app.windows()).toHaveLength(1);
  });
});

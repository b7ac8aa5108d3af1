/**
 * The Electron main process: thin glue. It creates the core on the user's data folder, one
 * hardened window, and the IPC bridge; on quit it disposes the core before exiting. Every
 * decision it applies lives in ipc/ (securityPolicy.ts, window.ts, registerIpc.ts,
 * quitGuard.ts), where it is tested under plain Node.
 *
 * Environment: BERTH_DATA_DIR puts Berth's data somewhere else than Electron's userData (the
 * end-to-end test uses it); BERTH_DEV_SERVER_URL loads the renderer from a Vite dev server on
 * this computer's loopback (unpackaged runs only).
 */
import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, Notification, protocol, safeStorage, session, shell } from 'electron';
import { keyFileBox } from './agent/secrets/secretBox.js';
import { safeStorageBox } from './ipc/safeStorageBox.js';
import { createCore, type BerthCore } from './core.js';
import { notifyApprovals } from './ipc/approvalNotifier.js';
import { createQuitGuard } from './ipc/quitGuard.js';
import { registerIpc, type IpcRegistration } from './ipc/registerIpc.js';
import { appStartUrl, contentSecurityPolicy, isTrustedSenderUrl, parseDevServerUrl, type UrlPolicy } from './ipc/securityPolicy.js';
import { APP_SCHEME_PRIVILEGES, guardWebContents, hardenSession, mainWindowOptions, serveApp } from './ipc/window.js';

const policy: UrlPolicy = { devServerOrigin: app.isPackaged ? null : parseDevServerUrl(process.env.BERTH_DEV_SERVER_URL) };
const csp = contentSecurityPolicy(policy);
const appRoot = app.getAppPath();
const rendererDir = path.join(appRoot, 'dist', 'renderer');
const preloadPath = path.join(appRoot, 'dist', 'electron', 'preload', 'index.cjs');
const log = (line: string) => process.stderr.write(`${line}\n`);

if (process.env.BERTH_DATA_DIR) app.setPath('userData', path.resolve(process.env.BERTH_DATA_DIR));
app.enableSandbox();
protocol.registerSchemesAsPrivileged(APP_SCHEME_PRIVILEGES);

let core: BerthCore | null = null;
let ipc: IpcRegistration | null = null;
let mainWindow: BrowserWindow | null = null;
let notifier: { dispose(): void } | null = null;

function openWindow(): void {
  const win = new BrowserWindow(mainWindowOptions({ preload: preloadPath, devTools: !app.isPackaged }));
  mainWindow = win;
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  void win
    .loadURL(appStartUrl(policy))
    .catch((error: unknown) => log(`Berth could not load its window (is the renderer built? npm run build:renderer): ${String(error)}`));
}

async function start(): Promise<void> {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, policy, (url) => shell.openExternal(url)));
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  const quitGuard = createQuitGuard({
    dispose: async () => {
      notifier?.dispose();
      ipc?.dispose();
      await core?.dispose();
    },
    exit: (code) => app.exit(code),
    log,
  });
  app.on('before-quit', (event) => quitGuard.onBeforeQuit(event));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (core && !mainWindow) openWindow();
  });

  await app.whenReady();
  hardenSession(session.defaultSession, csp, policy);
  serveApp(protocol, rendererDir, csp);
  try {
    const dataDir = app.getPath('userData');
    // Made on first use (after app ready, when safeStorage can answer).
    const secrets = () => safeStorageBox(safeStorage, () => keyFileBox(dataDir, process.env));
    core = createCore({ dataDir, secrets, env: { ...process.env, BERTH_PREPARE_IMAGES: process.env.BERTH_PREPARE_IMAGES ?? '1' } });
  } catch (error) {
    dialog.showErrorBox('Berth could not start', `Berth could not open its data in ${app.getPath('userData')}.\n\n${error instanceof Error ? error.message : String(error)}`);
    app.exit(1);
    return;
  }
  ipc = registerIpc({ ipcMain, core, getWindow: () => mainWindow, dialog, isTrustedSender: (url) => isTrustedSenderUrl(url, policy) });
  const focusWindow = () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  };
  notifier = notifyApprovals({
    core,
    isFocused: () => mainWindow?.isFocused() ?? false,
    show: ({ title, body, onClick }) => {
      if (!Notification.isSupported()) return;
      const n = new Notification({ title, body });
      n.on('click', onClick);
      n.show();
    },
    focusWindow,
  });
  openWindow();
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  start().catch((error: unknown) => {
    log(`Berth failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    app.exit(1);
  });
}

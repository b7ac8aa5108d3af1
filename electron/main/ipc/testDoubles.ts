/**
 * Test doubles of Electron's ipcMain, ipcRenderer, BrowserWindow/webContents and dialog, for
 * the unit tests only: Electron's binary cannot run where these tests run, so the glue takes
 * these objects as parameters. They mimic the behaviour the glue relies on (one handler per
 * channel, invoke rejecting without one, send delivering to the renderer's listeners).
 */
import { EventEmitter } from 'node:events';
import type { IpcInvokeEventLike, IpcMainLike, RegisterIpcOptions, WindowLike } from './registerIpc.js';
import { APP_INDEX_URL } from './securityPolicy.js';

type Handler = (event: IpcInvokeEventLike, ...args: unknown[]) => unknown;

export class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, Handler>();

  handle(channel: string, listener: Handler): void {
    // Electron throws on a second handler for the same channel.
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  /** What ipcRenderer.invoke does in Electron: the handler's value, or a rejection. */
  async invoke(channel: string, event: IpcInvokeEventLike, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    // Arguments and results cross IPC by structured clone.
    const result = await handler(event, ...structuredClone(args));
    return structuredClone(result);
  }
}

export class FakeWindow implements WindowLike {
  destroyed = false;
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];
  /** Where sent messages go (a FakeIpcRenderer), when wired. */
  renderer: FakeIpcRenderer | null = null;
  readonly webContents: {
    readonly id: number;
    url: string;
    isDestroyed(): boolean;
    getURL(): string;
    send(channel: string, ...args: unknown[]): void;
  };

  constructor(id = 1, url = APP_INDEX_URL) {
    const sent = this.sent;
    const isDestroyed = () => this.destroyed;
    const deliver = (channel: string, args: unknown[]) => this.renderer?.emit(channel, { sender: 'the IPC event' }, ...structuredClone(args));
    this.webContents = {
      id,
      url,
      isDestroyed,
      getURL() {
        return this.url;
      },
      send(channel, ...args) {
        sent.push({ channel, args });
        deliver(channel, args);
      },
    };
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }
}

/** An event from the window's top frame at a URL (the app's own index by default). */
export function senderEvent(win: FakeWindow, url = APP_INDEX_URL, parent: unknown = null): IpcInvokeEventLike {
  return { sender: { id: win.webContents.id }, senderFrame: { url, parent } };
}

export class FakeIpcRenderer extends EventEmitter {
  constructor(private readonly invokeImpl: (channel: string, ...args: unknown[]) => Promise<unknown>) {
    super();
  }

  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    return this.invokeImpl(channel, ...args);
  }
}

export function fakeDialog(result: { canceled: boolean; filePaths: string[] }) {
  const calls: Array<{ window: unknown; options: unknown }> = [];
  return {
    calls,
    async showOpenDialog(window: unknown, options: unknown) {
      calls.push({ window, options });
      return result;
    },
  };
}

/** What runs in the chat's terminals, as main's preview would list it. */
export const RUNNING = [{ terminalId: 't1', title: 'Terminal 1', processes: ['npm run dev'] }];

/**
 * The core, as if something ran in every chat's terminals: the engine here does not answer, so
 * no terminal can run, and main's preview (workspace.attachPreview) says so for an attach that
 * replaces the container. Its token is main's own, redeemed by the real attach.
 */
export function whileRunning(real: RegisterIpcOptions<FakeWindow>['core']): RegisterIpcOptions<FakeWindow>['core'] {
  return {
    call: (method, params) => real.call(method, params),
    onEvent: (listener) => real.onEvent(listener),
    connectClient: () => {
      const client = real.connectClient();
      return {
        ...client,
        call: async (method, params) => {
          const result = await client.call(method, params);
          const preview = result as { recreates?: boolean };
          return method === 'workspace.attachPreview' && preview.recreates ? { ...preview, running: RUNNING, needsConfirmation: true } : result;
        },
      };
    },
  };
}

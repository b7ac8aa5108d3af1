/**
 * Picks the transport once: the preload bridge when the desktop app exposes `window.berth`,
 * otherwise JSON-RPC over WebSocket to the browser host that served this page.
 */
import './zodJitless';
import type { BerthApi, ConnectionSource } from './types';
import { PreloadClient } from './preloadClient';
import { WsClient, rpcUrl } from './wsClient';

export interface ApiLink {
  api: BerthApi;
  connection: ConnectionSource;
  /** Reconnect at once (the WebSocket transport); a no-op over the preload bridge. */
  reconnectNow(): void;
}

export function createApi(win: Window = window): ApiLink {
  if (win.berth) {
    const client = new PreloadClient(win.berth);
    return { api: client, connection: client, reconnectNow: () => {} };
  }
  const client = new WsClient({ url: rpcUrl(win.location) });
  return { api: client, connection: client, reconnectNow: () => client.reconnectNow() };
}

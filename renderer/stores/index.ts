/**
 * The renderer's stores, built for one API, and the wiring that keeps them a projection of
 * main's state: initial fetch, events, refetch on `chats.changed` and after a reconnect.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { BerthApi, ConnectionInfo, ConnectionSource } from '../api/types';
import { createAgentStore, type AgentStore } from './agent';
import { createChatsStore, type ChatsStore } from './chats';
import { createEngineStore, type EngineStore } from './engine';
import { createProfilesStore, type ProfilesStore } from './profiles';
import { createSandboxStore, type SandboxStore } from './sandbox';
import { createTerminalsStore, type TerminalsStore } from './terminals';

export interface Stores {
  chats: ChatsStore;
  profiles: ProfilesStore;
  sandbox: SandboxStore;
  engine: EngineStore;
  terminals: TerminalsStore;
  agent: AgentStore;
  connection: StoreApi<ConnectionInfo>;
}

export function createStores(api: BerthApi, connection: ConnectionSource): Stores {
  return {
    chats: createChatsStore(api),
    profiles: createProfilesStore(api),
    sandbox: createSandboxStore(api),
    engine: createEngineStore(api),
    terminals: createTerminalsStore(api),
    agent: createAgentStore(api),
    connection: createStore<ConnectionInfo>()(() => connection.get()),
  };
}

export interface SyncOptions {
  /** Open a terminal for a selected chat that has none (once per chat). Default true. */
  autoOpenTerminal?: boolean;
  /** Coalesces bursts of `chats.changed` into one refetch. Default 30 ms. */
  refetchDelayMs?: number;
}

/** Starts keeping the stores in step with main; returns the stop function. */
export function startSync(stores: Stores, api: BerthApi, connection: ConnectionSource, options: SyncOptions = {}): () => void {
  const autoOpen = options.autoOpenTerminal ?? true;
  const delay = options.refetchDelayMs ?? 30;
  const offs: Array<() => void> = [];
  let refetchTimer: ReturnType<typeof setTimeout> | null = null;
  const changedChats = new Set<string | null>();

  const refreshSelected = () => {
    const chatId = stores.chats.getState().selectedId;
    if (chatId === null) return;
    void stores.sandbox.getState().load(chatId);
    void stores.agent.getState().load(chatId);
    const terminals = stores.terminals.getState();
    void (autoOpen ? terminals.ensure(chatId) : terminals.load(chatId));
  };

  /** The lists `chats.changed` may be about: main emits it after chat and profile changes alike. */
  const refreshLists = () => {
    void stores.chats.getState().refresh();
    void stores.profiles.getState().refresh();
  };

  const refreshAll = () => {
    refreshLists();
    void stores.engine.getState().refresh();
    refreshSelected();
  };

  offs.push(
    api.on('chats.changed', ({ chatId }) => {
      changedChats.add(chatId);
      if (refetchTimer !== null) return;
      refetchTimer = setTimeout(() => {
        refetchTimer = null;
        const selected = stores.chats.getState().selectedId;
        const touchesSelected = changedChats.has(selected) || changedChats.has(null);
        changedChats.clear();
        refreshLists();
        if (selected !== null && touchesSelected) void stores.sandbox.getState().load(selected);
      }, delay);
    }),
    api.on('sandbox.status', (status) => stores.sandbox.getState().dispatch({ type: 'status', status })),
    api.on('sandbox.progress', (progress) => stores.sandbox.getState().dispatch({ type: 'progress', progress })),
    api.on('engine.status', (status) => {
      // Each engine reports its own health; the status bar follows the one it showed first.
      const shown = stores.engine.getState().status?.engine?.id;
      if (shown && status.engine?.id && status.engine.id !== shown) return;
      const wasDown = stores.engine.getState().status?.state === 'unreachable';
      stores.engine.getState().set(status);
      // The engine is back: what the selected chat showed as an error may be fine now.
      if (wasDown && status.state === 'ok') refreshSelected();
    }),
    api.on('terminal.exit', ({ terminalId, chatId, reason }) => stores.terminals.getState().markExited(terminalId, chatId, reason)),
    api.on('agent.message', ({ message }) => stores.agent.getState().dispatch({ type: 'message', message })),
    api.on('agent.delta', (delta) => stores.agent.getState().dispatch({ type: 'delta', ...delta })),
    api.on('agent.state', (state) => stores.agent.getState().dispatch({ type: 'state', ...state })),
    api.on('agent.approval', (request) => stores.agent.getState().dispatch({ type: 'approval', request })),
    api.on('agent.approvalDone', (done) => stores.agent.getState().dispatch({ type: 'approvalDone', ...done })),
  );

  // Selection: load the chosen chat's sandbox status, conversation and terminals.
  offs.push(
    stores.chats.subscribe((s, prev) => {
      if (s.selectedId !== prev.selectedId) refreshSelected();
      // Chats that are gone: drop what was kept about them.
      if (s.chats !== prev.chats && s.loaded) {
        const alive = new Set(s.chats.map((c) => c.id));
        for (const c of prev.chats) {
          if (alive.has(c.id)) continue;
          stores.terminals.getState().forgetChat(c.id);
          stores.sandbox.getState().dispatch({ type: 'forget', chatId: c.id });
          stores.agent.getState().dispatch({ type: 'forget', chatId: c.id });
        }
      }
    }),
  );

  // Connection: mirror it (createStores seeded it), and refetch everything after a reconnect
  // (events may have been missed).
  offs.push(
    connection.subscribe((info) => {
      const prev = stores.connection.getState();
      stores.connection.setState(info, true);
      if (info.state === 'open' && info.epoch > 1 && info.epoch !== prev.epoch) refreshAll();
    }),
  );

  refreshAll();

  return () => {
    if (refetchTimer !== null) clearTimeout(refetchTimer);
    for (const off of offs) off();
  };
}

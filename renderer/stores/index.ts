/**
 * The renderer's stores, built for one API, and the wiring that keeps them a projection of
 * main's state: initial fetch, events, refetch on `chats.changed` and after a reconnect.
 */
import { drafts } from './drafts';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { BerthApi, ConnectionInfo, ConnectionSource } from '../api/types';
import { DEFAULT_PROFILE, type ApprovalRequest } from '../../shared/contract';
import { createAgentStore, type AgentStore } from './agent';
import { createAttentionStore, type AttentionStore } from './attention';
import { createChatsStore, type ChatsStore, type SelectionMemory } from './chats';
import { createEngineStore, type EngineStore } from './engine';
import { createProfilesStore, type ProfilesStore } from './profiles';
import { createReviewStore, type ReviewStore } from './review';
import { createSandboxStore, type SandboxStore } from './sandbox';
import { createTerminalsStore, type TerminalsStore } from './terminals';

export interface Stores {
  chats: ChatsStore;
  profiles: ProfilesStore;
  sandbox: SandboxStore;
  engine: EngineStore;
  terminals: TerminalsStore;
  agent: AgentStore;
  review: ReviewStore;
  attention: AttentionStore;
  connection: StoreApi<ConnectionInfo>;
}

export function createStores(api: BerthApi, connection: ConnectionSource, memory: SelectionMemory | null = null): Stores {
  return {
    chats: createChatsStore(api, memory),
    profiles: createProfilesStore(api),
    sandbox: createSandboxStore(api),
    engine: createEngineStore(api),
    terminals: createTerminalsStore(api),
    agent: createAgentStore(api),
    review: createReviewStore(api),
    attention: createAttentionStore(),
    connection: createStore<ConnectionInfo>()(() => connection.get()),
  };
}

export interface SyncOptions {
  /** Open a terminal for a selected chat that has none (once per chat). Default true. */
  autoOpenTerminal?: boolean;
  /** Coalesces bursts of `chats.changed` into one refetch. Default 30 ms. */
  refetchDelayMs?: number;
  /** Coalesces bursts of `review.changed` for the selected chat. Default 250 ms. */
  reviewRefreshMs?: number;
  /**
   * Told of every command that starts waiting for approval, in any chat: the browser host's
   * desktop notification (the desktop app's main process notifies by itself).
   */
  onApproval?: (request: ApprovalRequest) => void;
  /**
   * Runs the refetch of a newly selected chat (sandbox status, conversation, terminals, restore
   * points). The page passes "after the next frame" (afterNextFrame): the chat shows at once
   * from what the stores kept of it, and the round trips and the renders their answers cause
   * never hold up the switch's first frame. Default: at once.
   */
  deferSelectionLoad?: (run: () => void) => void;
}

/** Runs `run` in a task after the next frame has been drawn (the browser's). */
export function afterNextFrame(run: () => void): void {
  requestAnimationFrame(() => setTimeout(run, 0));
}

/** Runs `run(key)` at most once per `delayMs` per key, after the first request in a burst. */
function coalesce(delayMs: number, run: (key: string) => void) {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return {
    request(key: string) {
      if (timers.has(key)) return;
      timers.set(key, setTimeout(() => {
        timers.delete(key);
        run(key);
      }, delayMs));
    },
    dispose() {
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}

/** Starts keeping the stores in step with main; returns the stop function. */
export function startSync(stores: Stores, api: BerthApi, connection: ConnectionSource, options: SyncOptions = {}): () => void {
  const autoOpen = options.autoOpenTerminal ?? true;
  const delay = options.refetchDelayMs ?? 30;
  const offs: Array<() => void> = [];
  let refetchTimer: ReturnType<typeof setTimeout> | null = null;
  const changedChats = new Set<string | null>();
  let selectionLoadPending = false;
  // The selected chat's changes and restore points follow `review.changed`, coalesced: while
  // commands run it can fire many times a second.
  const reviewRefresh = coalesce(options.reviewRefreshMs ?? 250, (chatId) => {
    const review = stores.review.getState();
    if (review.changes[chatId]) void review.load(chatId);
    void review.loadCheckpoints(chatId);
  });

  const refreshSelected = () => {
    const chatId = stores.chats.getState().selectedId;
    if (chatId === null) return;
    void stores.sandbox.getState().load(chatId);
    void stores.agent.getState().load(chatId);
    void stores.review.getState().loadCheckpoints(chatId);
    const terminals = stores.terminals.getState();
    void (autoOpen ? terminals.ensure(chatId) : terminals.load(chatId));
  };

  /** The lists `chats.changed` may be about: main emits it after chat and profile changes alike. */
  const refreshLists = () => {
    void stores.chats.getState().refresh();
    void stores.profiles.getState().refresh();
  };

  /** What waits in every chat (after a reload, a reconnect): the sidebar badges them unopened. */
  const loadWaiting = async () => {
    const { approvals } = await api.call('agent.waiting', {}).catch(() => ({ approvals: [] }));
    const byChat = new Map<string, string[]>();
    for (const a of approvals) byChat.set(a.chatId, [...(byChat.get(a.chatId) ?? []), a.approvalId]);
    for (const [chatId, approvalIds] of byChat) stores.attention.getState().dispatch({ type: 'approvalsLoaded', chatId, approvalIds });
  };

  const refreshAll = () => {
    refreshLists();
    void stores.engine.getState().refresh();
    refreshSelected();
    void loadWaiting();
  };

  // A profile deleted (here or in another window) is no longer where new chats go.
  offs.push(
    stores.profiles.subscribe(({ loaded, profiles }) => {
      const chats = stores.chats.getState();
      if (loaded && chats.newChatProfile !== DEFAULT_PROFILE && !profiles.some((p) => p.name === chats.newChatProfile)) chats.setNewChatProfile(DEFAULT_PROFILE);
    }),
  );

  offs.push(
    api.on('chats.changed', ({ chatId }) => {
      changedChats.add(chatId);
      if (refetchTimer !== null) return;
      refetchTimer = setTimeout(() => {
        refetchTimer = null;
        const selected = stores.chats.getState().selectedId;
        const touchesSelected = changedChats.has(selected) || changedChats.has(null);
        // Profiles changed (null): one may name another engine now, so the status bar lists them again.
        const profilesChanged = changedChats.has(null);
        changedChats.clear();
        refreshLists();
        if (profilesChanged) void stores.engine.getState().refresh();
        if (selected !== null && touchesSelected) void stores.sandbox.getState().load(selected);
      }, delay);
    }),
    api.on('sandbox.status', (status) => stores.sandbox.getState().dispatch({ type: 'status', status })),
    api.on('sandbox.progress', (progress) => stores.sandbox.getState().dispatch({ type: 'progress', progress })),
    api.on('engine.status', (status) => {
      // Each engine reports its own health: the status bar shows the default profile's first, then the others.
      const shown = stores.engine.getState().status?.engine?.id;
      const isShown = !shown || !status.engine?.id || status.engine.id === shown;
      const wasDown = isShown && stores.engine.getState().status?.state === 'unreachable';
      stores.engine.getState().report(status);
      // The engine is back: what the selected chat showed as an error may be fine now.
      if (wasDown && status.state === 'ok') refreshSelected();
    }),
    api.on('terminal.exit', ({ terminalId, chatId, reason }) => stores.terminals.getState().markExited(terminalId, chatId, reason)),
    api.on('agent.message', ({ message }) => stores.agent.getState().dispatch({ type: 'message', message })),
    api.on('agent.delta', (delta) => stores.agent.getState().dispatch({ type: 'delta', ...delta })),
    api.on('agent.state', (state) => stores.agent.getState().dispatch({ type: 'state', ...state })),
    api.on('agent.approval', (request) => stores.agent.getState().dispatch({ type: 'approval', request })),
    api.on('agent.approvalDone', (done) => stores.agent.getState().dispatch({ type: 'approvalDone', ...done })),
    api.on('agent.allowed', (allowed) => stores.agent.getState().dispatch({ type: 'allowed', ...allowed })),
    // Every chat's, for the sidebar's badges and the notification.
    api.on('agent.approval', (request) => {
      stores.attention.getState().dispatch({ type: 'approval', chatId: request.chatId, approvalId: request.approvalId });
      options.onApproval?.(request);
    }),
    api.on('agent.approvalDone', (done) => stores.attention.getState().dispatch({ type: 'approvalDone', ...done })),
    api.on('sandbox.pressure', (p) => stores.attention.getState().dispatch({ type: 'pressure', ...p })),
    api.on('agent.state', ({ chatId, running }) => {
      if (!running) stores.attention.getState().dispatch({ type: 'turnEnded', chatId, inView: chatId === stores.chats.getState().selectedId });
    }),
    // A turn that starts or ends adds or completes a restore point ("Undo this turn").
    api.on('agent.state', ({ chatId }) => {
      if (chatId === stores.chats.getState().selectedId) reviewRefresh.request(chatId);
    }),
    api.on('review.progress', (progress) => stores.review.getState().setProgress(progress)),
    api.on('review.changed', ({ chatId, count }) => {
      stores.review.getState().setCount(chatId, count);
      if (chatId === stores.chats.getState().selectedId) reviewRefresh.request(chatId);
    }),
  );

  // Selection: load the chosen chat's sandbox status, conversation and terminals.
  offs.push(
    stores.chats.subscribe((s, prev) => {
      if (s.selectedId !== prev.selectedId) {
        if (!options.deferSelectionLoad) refreshSelected();
        else if (!selectionLoadPending) {
          // Loads the chat selected when it runs: switches faster than frames load the last one only.
          selectionLoadPending = true;
          options.deferSelectionLoad(() => {
            selectionLoadPending = false;
            refreshSelected();
          });
        }
        if (s.selectedId !== null) stores.attention.getState().dispatch({ type: 'seen', chatId: s.selectedId });
      }
      // Chats that are gone: drop what was kept about them.
      if (s.chats !== prev.chats && s.loaded) {
        const alive = new Set(s.chats.map((c) => c.id));
        // The first list: drafts of chats deleted while no page was open go too.
        if (!prev.loaded) drafts.keepOnly(alive);
        for (const c of prev.chats) {
          if (alive.has(c.id)) continue;
          for (const store of [stores.terminals, stores.sandbox, stores.agent, stores.review, stores.attention]) store.getState().forgetChat(c.id);
          drafts.forgetChat(c.id);
        }
      }
    }),
  );

  // A loaded conversation says what waits in it (after a reload, or approvals answered elsewhere).
  offs.push(
    stores.agent.subscribe((s, prev) => {
      for (const [chatId, c] of Object.entries(s.byChat)) {
        const before = prev.byChat[chatId];
        if (c.loaded && (before === undefined || before.approvals !== c.approvals || !before.loaded)) {
          stores.attention.getState().dispatch({ type: 'approvalsLoaded', chatId, approvalIds: c.approvals.map((a) => a.approvalId) });
        }
      }
    }),
  );

  // A sandbox error that went away (the profile was fixed): the terminal that failed with it recovers.
  offs.push(
    stores.sandbox.subscribe((s, prev) => {
      const selected = stores.chats.getState().selectedId;
      if (selected === null || s.views[selected] === prev.views[selected]) return;
      const was = prev.views[selected]?.status?.state;
      const now = s.views[selected]?.status?.state;
      if (was === 'error' && now !== 'error' && now !== undefined) void stores.terminals.getState().recover(selected);
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
    reviewRefresh.dispose();
    for (const off of offs) off();
  };
}

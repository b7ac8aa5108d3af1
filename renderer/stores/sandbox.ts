/**
 * Sandbox status per chat, from `sandbox.status` calls and the `sandbox.status` /
 * `sandbox.progress` events. The reducer is pure so the projection is testable on its own.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { SandboxProgressEvent, SandboxState, SandboxStatus } from '../../shared/contract';
import type { BerthApi } from '../api/types';
import { errorInfo, type ApiErrorInfo } from '../api/errors';
import { without, type ForgetsChats } from './record';

export interface SandboxView {
  status: SandboxStatus | null;
  /** The bring-up in flight (pulling, creating, starting), until it is ready or a status says otherwise. */
  progress: SandboxProgressEvent | null;
  /** The newest revision applied (SandboxStatus.revision): anything older is stale. */
  revision?: number;
}

/** Read before what the view already shows (a late answer to `sandbox.status`, say). */
function stale(prev: SandboxView | undefined, revision: number | undefined): boolean {
  return revision !== undefined && prev?.revision !== undefined && revision < prev.revision;
}

function newest(prev: SandboxView | undefined, revision: number | undefined): number | undefined {
  return revision ?? prev?.revision;
}

export type SandboxAction =
  | { type: 'status'; status: SandboxStatus }
  | { type: 'progress'; progress: SandboxProgressEvent }
  | { type: 'forget'; chatId: string };

export type SandboxViews = Readonly<Record<string, SandboxView>>;

const IN_PROGRESS: ReadonlySet<SandboxState> = new Set(['building', 'pulling', 'creating', 'starting']);

/** Whether the sandbox is being brought up: building or pulling its image, creating or starting its container. */
export function isBringingUp(state: SandboxState): boolean {
  return IN_PROGRESS.has(state);
}

function emptyStatus(chatId: string, key: string | null): SandboxStatus {
  return { chatId, state: 'none', key, containerId: null, containerName: null, image: null, networkName: null, error: null };
}

export function reduceSandbox(state: SandboxViews, action: SandboxAction): SandboxViews {
  switch (action.type) {
    case 'status': {
      const { status } = action;
      const prev = state[status.chatId];
      if (stale(prev, status.revision)) return state;
      // A status that is itself a bring-up phase keeps the progress of that phase (its fraction).
      const progress = prev?.progress && isBringingUp(status.state) && prev.progress.phase === status.state ? prev.progress : null;
      return { ...state, [status.chatId]: { status, progress, revision: newest(prev, status.revision) } };
    }
    case 'progress': {
      const { progress } = action;
      const prev = state[progress.chatId];
      if (stale(prev, progress.revision)) return state;
      const revision = newest(prev, progress.revision);
      if (progress.phase === 'ready') {
        const base = prev?.status ?? emptyStatus(progress.chatId, progress.key);
        return { ...state, [progress.chatId]: { status: { ...base, state: 'running', error: null }, progress: null, revision } };
      }
      return { ...state, [progress.chatId]: { status: prev?.status ?? null, progress, revision } };
    }
    case 'forget':
      return action.chatId in state ? without(state, action.chatId) : state;
  }
}

export interface SandboxDisplay {
  state: SandboxState;
  /** 0..1 while building or pulling, when the engine reports it. */
  fraction: number | null;
  message: string | null;
  error: { code: string; message: string } | null;
}

/** What the chat header shows: the bring-up phase while one runs, otherwise the last status. */
export function displaySandbox(view: SandboxView | undefined): SandboxDisplay {
  if (view?.progress) {
    return { state: view.progress.phase as SandboxState, fraction: view.progress.fraction, message: view.progress.message, error: null };
  }
  const status = view?.status;
  if (!status) return { state: 'none', fraction: null, message: null, error: null };
  return { state: status.state, fraction: null, message: null, error: status.state === 'error' ? status.error : null };
}

export interface SandboxStoreState extends ForgetsChats {
  views: SandboxViews;
  /** A failed `sandbox.status` call per chat (the engine may be down). */
  loadErrors: Readonly<Record<string, ApiErrorInfo>>;
  dispatch(action: SandboxAction): void;
  load(chatId: string): Promise<void>;
}

export type SandboxStore = StoreApi<SandboxStoreState>;

export function createSandboxStore(api: BerthApi): SandboxStore {
  return createStore<SandboxStoreState>()((set) => ({
    views: {},
    loadErrors: {},
    dispatch(action) {
      set((s) => ({ views: reduceSandbox(s.views, action) }));
    },
    forgetChat(chatId) {
      set((s) => ({ views: reduceSandbox(s.views, { type: 'forget', chatId }), loadErrors: without(s.loadErrors, chatId) }));
    },
    async load(chatId) {
      try {
        const status = await api.call('sandbox.status', { chatId });
        set((s) => ({ views: reduceSandbox(s.views, { type: 'status', status }), loadErrors: without(s.loadErrors, chatId) }));
      } catch (error) {
        set((s) => ({ loadErrors: { ...s.loadErrors, [chatId]: errorInfo(error) } }));
      }
    },
  }));
}

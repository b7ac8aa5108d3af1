/** The Docker engine's state, from the `engine.status` call and event. */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineStatus } from '../../shared/contract';
import type { BerthApi } from '../api/types';
import { errorInfo, type ApiErrorInfo } from '../api/errors';

export interface EngineState {
  /** Null until the first answer: shown as "checking". */
  status: EngineStatus | null;
  error: ApiErrorInfo | null;
  set(status: EngineStatus): void;
  refresh(): Promise<void>;
}

export type EngineStore = StoreApi<EngineState>;

export function createEngineStore(api: BerthApi): EngineStore {
  return createStore<EngineState>()((set) => ({
    status: null,
    error: null,
    set(status) {
      set({ status, error: null });
    },
    async refresh() {
      try {
        const status = await api.call('engine.status', {});
        set({ status, error: null });
      } catch (error) {
        set({ error: errorInfo(error) });
      }
    },
  }));
}

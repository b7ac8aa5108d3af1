/** The Docker engine's state, from the `engine.status` call and event. */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineStatus } from '../../shared/contract';
import type { BerthApi } from '../api/types';
import { errorInfo, type ApiErrorInfo } from '../api/errors';

export interface EngineState {
  /** Null until the first answer: shown as "checking". */
  status: EngineStatus | null;
  error: ApiErrorInfo | null;
  /** The other engines Berth talks to (profiles that name their own), each with its health. */
  others: EngineStatus[];
  set(status: EngineStatus): void;
  /** An event from any engine: the shown one's, or one of the others'. */
  report(status: EngineStatus): void;
  refresh(): Promise<void>;
}

export type EngineStore = StoreApi<EngineState>;

export function createEngineStore(api: BerthApi): EngineStore {
  return createStore<EngineState>()((set, get) => ({
    status: null,
    error: null,
    others: [],
    set(status) {
      set({ status, error: null });
    },
    report(status) {
      const shown = get().status?.engine?.id;
      const id = status.engine?.id;
      if (!shown || !id || id === shown) {
        get().set(status);
        return;
      }
      const others = get().others;
      set({ others: others.some((o) => o.engine?.id === id) ? others.map((o) => (o.engine?.id === id ? status : o)) : [...others, status] });
    },
    async refresh() {
      try {
        const status = await api.call('engine.status', {});
        set({ status, error: null });
        const { engines } = await api.call('engine.list', {});
        const shown = status.engine?.id;
        // Without an id (an older main) only the shown one is known.
        set({ others: shown ? engines.filter((e) => e.engine && e.engine.id !== shown) : [] });
      } catch (error) {
        set({ error: errorInfo(error) });
      }
    },
  }));
}

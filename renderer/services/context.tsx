/**
 * What components reach through context: the API (never which transport) and the stores. It sits
 * below features and app/, so a feature reaches the app's services without importing the app that
 * composes it; the terminal screens are the terminals feature's own context (features/terminals).
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { BerthApi } from '../api/types';
import type { Stores } from '../stores';
import type { ChatsState } from '../stores/chats';
import type { ProfilesState } from '../stores/profiles';
import type { SandboxStoreState } from '../stores/sandbox';
import type { EngineState } from '../stores/engine';
import type { TerminalsState } from '../stores/terminals';
import type { AgentState } from '../stores/agent';
import type { ReviewState } from '../stores/review';
import type { AttentionStoreState } from '../stores/attention';
import type { ConnectionInfo } from '../api/types';

export interface AppServices {
  api: BerthApi;
  stores: Stores;
  reconnectNow(): void;
  /** Asks once for the permission to notify (browser host); absent where main notifies. */
  askToNotify?: () => void;
  /**
   * When a view that just opened for a chat asks for what it shows only on demand (the network
   * log): the page passes "after the next frame" so the request stays out of a chat switch's
   * click and frame; default at once (component tests).
   */
  later?: (run: () => void) => void;
}

const ServicesContext = createContext<AppServices | null>(null);

export function AppProvider({ services, children }: { services: AppServices; children: ReactNode }) {
  return <ServicesContext.Provider value={services}>{children}</ServicesContext.Provider>;
}

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('AppProvider is missing');
  return services;
}

/**
 * A feature's actions: its calls to main and the store updates that follow them, made once per
 * app. Components call these, never the API (GitHub Desktop's one way in for every intent, kept
 * per feature); lint refuses `api` taken from useServices in a feature.
 */
export function useActions<T>(make: (api: BerthApi, stores: Stores) => T): T {
  const { api, stores } = useServices();
  return useMemo(() => make(api, stores), [make, api, stores]);
}

// Selectors must return stable values (a field, or a primitive): zustand re-renders on change.
export function useChats<T>(selector: (s: ChatsState) => T): T {
  return useStore(useServices().stores.chats, selector);
}
export function useProfiles<T>(selector: (s: ProfilesState) => T): T {
  return useStore(useServices().stores.profiles, selector);
}
export function useSandbox<T>(selector: (s: SandboxStoreState) => T): T {
  return useStore(useServices().stores.sandbox, selector);
}
export function useEngine<T>(selector: (s: EngineState) => T): T {
  return useStore(useServices().stores.engine, selector);
}
export function useTerminals<T>(selector: (s: TerminalsState) => T): T {
  return useStore(useServices().stores.terminals, selector);
}
export function useAgent<T>(selector: (s: AgentState) => T): T {
  return useStore(useServices().stores.agent, selector);
}
export function useReview<T>(selector: (s: ReviewState) => T): T {
  return useStore(useServices().stores.review, selector);
}
export function useConnection<T>(selector: (s: ConnectionInfo) => T): T {
  return useStore(useServices().stores.connection, selector);
}
export function useAttention<T>(selector: (s: AttentionStoreState) => T): T {
  return useStore(useServices().stores.attention, selector);
}

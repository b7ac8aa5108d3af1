/**
 * Profiles: a projection of main's list (refetched by startSync on `chats.changed`, which main
 * emits after every change). Create and update reject with the API error for the form.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ProfileSettingsInput, ProfileView, Request } from '../../shared/contract';
import type { BerthApi } from '../api/types';
import { errorInfo, type ApiErrorInfo } from '../api/errors';

export interface ProfilesState {
  profiles: ProfileView[];
  loaded: boolean;
  error: ApiErrorInfo | null;
  refresh(): Promise<void>;
  create(input: Request<'profiles.create'>): Promise<ProfileView>;
  update(name: string, settings: Partial<ProfileSettingsInput>): Promise<ProfileView>;
}

export type ProfilesStore = StoreApi<ProfilesState>;

export function createProfilesStore(api: BerthApi): ProfilesStore {
  let generation = 0;
  const upsert = (profiles: ProfileView[], p: ProfileView) =>
    profiles.some((x) => x.name === p.name) ? profiles.map((x) => (x.name === p.name ? p : x)) : [...profiles, p];
  return createStore<ProfilesState>()((set) => ({
    profiles: [],
    loaded: false,
    error: null,
    async refresh() {
      const mine = ++generation;
      try {
        const { profiles } = await api.call('profiles.list', {});
        if (mine === generation) set({ profiles, loaded: true, error: null });
      } catch (error) {
        if (mine === generation) set({ error: errorInfo(error), loaded: true });
      }
    },
    async create(input) {
      const profile = await api.call('profiles.create', input);
      set((s) => ({ profiles: upsert(s.profiles, profile) }));
      return profile;
    },
    async update(name, settings) {
      const profile = await api.call('profiles.update', { name, settings });
      set((s) => ({ profiles: upsert(s.profiles, profile) }));
      return profile;
    },
  }));
}

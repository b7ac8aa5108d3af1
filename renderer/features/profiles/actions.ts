/**
 * The profile form's calls to main beyond the profiles store's create and update: the engine's
 * resources, images and contexts, an engine check, the agent's key, and deleting a profile.
 * Components call these, never the API.
 */
import type { BerthApi, Request } from '../../api/types';

export function profileActions(api: BerthApi) {
  return {
    engineResources: () => api.call('engine.resources', {}),
    engineImages: () => api.call('engine.images', {}),
    engineContexts: async () => (await api.call('engine.contexts', {})).contexts,
    checkEngine: (req: Request<'engine.check'>) => api.call('engine.check', req),
    keyStatus: (profile: string) => api.call('agent.keyStatus', { profile }),
    setKey: (profile: string, apiKey: string) => api.call('agent.setKey', { profile, apiKey }),
    clearKey: (profile: string) => api.call('agent.clearKey', { profile }),
    /** Deletes the profile with its chats (main answers once each chat is gone). */
    remove: (name: string) => api.call('profiles.delete', { name }),
  };
}

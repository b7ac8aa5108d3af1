/** Which containers the reaper removes. Pure. Another instance's containers are never touched. */
import { LABEL } from '../../policy/containerSpec.js';

export interface LabelledContainer {
  id: string;
  labels: Record<string, string>;
}

export function selectOrphans<T extends LabelledContainer>(
  containers: readonly T[],
  instanceId: string,
  chatExists: (chatId: string) => boolean,
  profileExists: (profile: string) => boolean,
): T[] {
  return containers.filter((c) => {
    if (c.labels[LABEL.instance] !== instanceId) return false;
    const profile = c.labels[LABEL.profile] ?? '';
    if (!profileExists(profile)) return true;
    const chat = c.labels[LABEL.chat] ?? '';
    // '' marks a profile's shared container: it lives as long as its profile.
    return chat !== '' && !chatExists(chat);
  });
}

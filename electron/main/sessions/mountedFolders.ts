/** Every host folder some sandbox of this Berth mounts: chats' attachments and profile mounts. */
import type { MountedFolder } from '../policy/attachmentOverlap.js';
import type { Store } from '../store/repositories.js';

export function mountedFolders(store: Store, except?: { chatId: string; hostPath: string }): MountedFolder[] {
  const titles = new Map(store.chats.list().map((c) => [c.id, c.title]));
  const fromChats = store.attachments
    .all()
    .filter((a) => a.provenance === 'session' && !(a.chatId === except?.chatId && a.hostPath === except.hostPath))
    .map((a) => ({
      hostPath: a.hostPath,
      readOnly: a.readOnly,
      owner: a.chatId === except?.chatId ? 'this chat' : `the chat "${titles.get(a.chatId) ?? a.chatId}"`,
    }));
  const fromProfiles = store.profiles
    .list()
    .flatMap((p) => p.settings.staticMounts.map((m) => ({ hostPath: m.source, readOnly: m.readOnly, owner: `the profile "${p.name}"` })));
  return [...fromChats, ...fromProfiles];
}

/** The host folders some sandbox can write itself: read-write attachments (not Review-mode copies, not read-only) and profiles' read-write mounts. */
export function directlyWritableFolders(store: Store): MountedFolder[] {
  const titles = new Map(store.chats.list().map((c) => [c.id, c.title]));
  const fromChats = store.attachments
    .all()
    .filter((a) => a.provenance === 'session' && a.mode === 'readwrite')
    .map((a) => ({ hostPath: a.hostPath, readOnly: false, owner: `the chat "${titles.get(a.chatId) ?? a.chatId}"` }));
  const fromProfiles = store.profiles
    .list()
    .flatMap((p) => p.settings.staticMounts.filter((m) => !m.readOnly).map((m) => ({ hostPath: m.source, readOnly: false, owner: `the profile "${p.name}"` })));
  return [...fromChats, ...fromProfiles];
}

/** workspace.*: attaching and detaching a chat's folders, and the folder browser. */
import { BerthError } from '../../../../shared/errors.js';
import { resolveAttachableFolder } from '../../workspace/folderValidation.js';
import { browseFolders } from '../../workspace/folderBrowser.js';
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function workspaceHandlers(s: Services): Handlers<'workspace'> {
  const { workspace, terminals, hostFacts } = s;
  /** A chat's open terminals run in a container without the new folders: end them, saying why. */
  function foldersChanged<T extends { notice: string | null }>(chatId: string, result: T): T {
    if (result.notice) void terminals.restartForChat(chatId, 'The chat’s folders changed: the sandbox was recreated with them and this terminal started again.');
    return result;
  }
  return {
    'workspace.attach': async (req) => changed(s, req.chatId, foldersChanged(req.chatId, await workspace.attach(req))),
    'workspace.detach': async (req) => changed(s, req.chatId, foldersChanged(req.chatId, await workspace.detach(req))),
    'workspace.attachEffect': (req) => workspace.effect(req),
    'workspace.browse': async (req) =>
      browseFolders(req.path, (folder) => {
        try {
          resolveAttachableFolder(folder, hostFacts());
          return null;
        } catch (error) {
          return error instanceof BerthError ? error.message : String(error);
        }
      }),
  };
}

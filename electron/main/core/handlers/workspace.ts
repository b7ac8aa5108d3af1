/** workspace.*: attaching and detaching a chat's folders, and the folder browser. */
import { BerthError } from '../../../../shared/errors.js';
import { resolveAttachableFolder } from '../../workspace/folderValidation.js';
import { browseFolders } from '../../workspace/folderBrowser.js';
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function workspaceHandlers(s: Services): Handlers<'workspace'> {
  const { folders, sandbox, hostFacts } = s;
  return {
    'workspace.attach': async (req) => {
      const { change, ...result } = await folders.attach(req);
      return changed(s, req.chatId, { ...result, notice: await sandbox.applyFolderChange(req.chatId, change) });
    },
    'workspace.detach': async (req) => {
      const { change, ...result } = await folders.detach(req);
      return changed(s, req.chatId, { ...result, notice: await sandbox.applyFolderChange(req.chatId, change) });
    },
    'workspace.attachEffect': (req) => sandbox.attachEffect(req),
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

/** workspace.*: attaching and detaching a chat's folders, and the folder browser. */
import { BerthError } from '../../../../shared/errors.js';
import { resolveAttachableFolder } from '../../workspace/folderValidation.js';
import { browseFolders } from '../../workspace/folderBrowser.js';
import { decideAttachConfirmation } from '../../policy/attachConfirmation.js';
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function workspaceHandlers(s: Services): Handlers<'workspace'> {
  const { folders, sandbox, hostFacts, terminals, confirmations } = s;
  return {
    'workspace.attach': async ({ confirm, ...req }, ctx) => {
      if (confirm) confirmations.redeem(ctx.client, confirm, { chatId: req.chatId, action: 'attach', path: req.path, mode: req.mode });
      const { change, ...result } = await folders.attach(req);
      return changed(s, req.chatId, { ...result, notice: await sandbox.applyFolderChange(req.chatId, change) });
    },
    'workspace.detach': async ({ confirm, ...req }, ctx) => {
      if (confirm) confirmations.redeem(ctx.client, confirm, { chatId: req.chatId, action: 'detach', path: req.path });
      const { change, ...result } = await folders.detach(req);
      return changed(s, req.chatId, { ...result, notice: await sandbox.applyFolderChange(req.chatId, change) });
    },
    'workspace.attachEffect': (req) => sandbox.attachEffect(req),
    'workspace.attachPreview': async (req, ctx) => {
      const effect = await sandbox.attachEffect(req);
      // Only a replaced container stops what runs: otherwise the terminals are not asked.
      const running = effect.recreates ? await terminals.busy(req.chatId).catch(() => []) : [];
      const decision = decideAttachConfirmation({ ...effect, running });
      const token = effect.recreates ? confirmations.issue(ctx.client, req) : null;
      return { ...effect, running, ...decision, token };
    },
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
